package local

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
)

// BenchmarkSearchCJK puts English and Japanese side by side: 100,000 words of English history
// and 100,000 words of Japanese history in one store (1,000 histories of each, 10 contents of
// 10 words), words drawn from the same Zipf distribution over 20,000 words of each language.
// English words are spaced; Japanese words are written as Japanese is, without spaces, joined
// by particles. The queries are words of the same Zipf ranks in both languages.
func BenchmarkSearchCJK(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rng, 1.1, 2, benchVocab-1)
	particles := []string{"の", "が", "を", "に", "で", "と", "は"}
	text := func(ja bool) string {
		var sb strings.Builder
		for i := range 10 {
			w := zipf.Uint64()
			switch {
			case !ja && i > 0:
				sb.WriteByte(' ')
				sb.WriteString(benchWord(w))
			case !ja:
				sb.WriteString(benchWord(w))
			default:
				sb.WriteString(jaWord(w))
				sb.WriteString(particles[rng.IntN(len(particles))])
			}
		}
		return sb.String()
	}
	base := store.Now().Add(-time.Hour)
	tx := mustTx(b, s)
	for i := range 2000 {
		ja := i%2 == 1
		h := &record.History{ID: store.NewHistoryID(), Workspace: s.workspace, AlertID: record.AlertID(fmt.Sprintf("alert-%d", i%50)),
			Title: text(ja)[:0] + "t", CreatedAt: base, UpdatedAt: base.Add(time.Duration(i) * time.Second), MessageCount: 10, Revision: 1}
		for t := range 10 {
			h.Contents = append(h.Contents, genai.NewContentFromText(text(ja), genai.Role([]string{genai.RoleUser, genai.RoleModel}[t%2])))
		}
		meta, _ := json.Marshal(h)
		if _, err := tx.ExecContext(ctx, `INSERT INTO histories (id, workspace, alert_id, updated_at, revision, meta) VALUES (?, ?, ?, ?, ?, ?)`,
			string(h.ID), h.Workspace, string(h.AlertID), micros(h.UpdatedAt), h.Revision, string(meta)); err != nil {
			b.Fatal(err)
		}
		if err := s.indexTx(ctx, tx, h, h); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	words := search.New(search.Options{})
	for _, tc := range []struct{ name, q string }{
		// Zipf ranks as in BenchmarkSearch100k: 2,000 rare, 200 medium, 20 common.
		{"en/rare", benchWord(2000)},
		{"ja/rare", jaWord(2000)},
		{"en/two-medium", benchWord(200) + " " + benchWord(300)},
		{"ja/two-medium", jaWord(200) + " " + jaWord(300)},
		{"en/common", benchWord(20)},
		{"ja/common", jaWord(20)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				rs, err := words.Search(ctx, s, search.Query{Text: tc.q, Limit: 20})
				if err != nil {
					b.Fatal(err)
				}
				n = len(rs)
			}
			b.ReportMetric(float64(n), "results")
		})
	}
}

// jaWord is the Japanese word of rank i: two to four characters, kanji (drawn from the first
// 2,000 of the CJK block, about as many as everyday Japanese uses) and katakana, the same for
// the same i.
func jaWord(i uint64) string {
	r := rand.New(rand.NewPCG(i, 7))
	n := 2 + r.IntN(3)
	var sb strings.Builder
	for range n {
		if r.IntN(4) == 0 {
			sb.WriteRune(rune(0x30A1 + r.IntN(0x56)))
		} else {
			sb.WriteRune(rune(0x4E00 + r.IntN(2000)))
		}
	}
	return sb.String()
}
