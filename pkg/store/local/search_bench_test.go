package local

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/searchtest"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
)

// The search benchmarks run on 100,000 histories of 10 contents each (5 saves of 2 contents,
// so 5 body rows and a title row each in the index, as chat writes them), words drawn from a
// Zipf distribution over 20,000 words, each history holding 2 of 50,000 redaction tokens, and a
// 768-dimension vector. Seeding takes a while; it is done once per run.
const (
	benchHistories = 100_000
	benchVocab     = 20_000
	benchTokens    = 50_000
	benchDims      = 768
)

func benchWord(i uint64) string { return fmt.Sprintf("w%x", i) }

func benchToken(i int) string { return fmt.Sprintf("[REDACTED_IP_t%07d]", i) }

// seedSearch seeds a store in a directory of b's (the top-level benchmark runs once; its
// sub-benchmarks share the store).
//
// ALERTCHAT_SEARCH_BENCH_DIR names a directory to keep the seeded store in between runs (it
// is seeded when it holds no store yet).
func seedSearch(b *testing.B) *Store {
	dir := os.Getenv("ALERTCHAT_SEARCH_BENCH_DIR")
	reuse := false
	if dir == "" {
		dir = b.TempDir()
	} else if _, err := os.Stat(filepath.Join(dir, DBFile)); err == nil {
		reuse = true
	}
	start := time.Now()
	func() {
		if reuse {
			return
		}
		s, err := Open(context.Background(), Options{Dir: dir, Workspace: "default"})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(1, 2))
		zipf := rand.NewZipf(rng, 1.1, 2, benchVocab-1)
		words := func(n int) string {
			var sb strings.Builder
			for i := range n {
				if i > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(benchWord(zipf.Uint64()))
			}
			return sb.String()
		}
		base := store.Now().Add(-benchHistories * time.Second)
		var tx = mustTx(b, s)
		for i := range benchHistories {
			if i%5000 == 4999 {
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				tx = mustTx(b, s)
			}
			h := &record.History{ID: store.NewHistoryID(), Workspace: s.workspace, AlertID: record.AlertID(fmt.Sprintf("alert-%d", i%2000)),
				Title: words(5), CreatedAt: base, UpdatedAt: base.Add(time.Duration(i) * time.Second), MessageCount: 10, Revision: 1}
			var cs []*genai.Content
			for t := range 10 {
				txt := words(25)
				if t == 3 || t == 7 {
					txt += " " + benchToken(rng.IntN(benchTokens))
				}
				role := genai.RoleUser
				if t%2 == 1 {
					role = genai.RoleModel
				}
				cs = append(cs, genai.NewContentFromText(txt, genai.Role(role)))
			}
			meta, _ := json.Marshal(h)
			if _, err := tx.ExecContext(ctx, `INSERT INTO histories (id, workspace, alert_id, updated_at, revision, meta) VALUES (?, ?, ?, ?, ?, ?)`,
				string(h.ID), h.Workspace, string(h.AlertID), micros(h.UpdatedAt), h.Revision, string(meta)); err != nil {
				b.Fatal(err)
			}
			for k := 2; k <= 10; k += 2 {
				h.Contents = cs[:k]
				if err := s.indexTx(ctx, tx, h, h); err != nil {
					b.Fatal(err)
				}
			}
			v := make([]float32, benchDims)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO search_vectors (workspace, history_id, alert_id, vec) VALUES (?, ?, ?, ?)`,
				s.workspace, string(h.ID), string(h.AlertID), scanVector(v)); err != nil {
				b.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE search_state SET embedded = 10, vec_sum = ? WHERE history_id = ?`, encodeF32(v), string(h.ID)); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}()
	s, err := Open(context.Background(), Options{Dir: dir, Workspace: "default"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	b.Logf("seeded %d histories in %s", benchHistories, time.Since(start).Round(time.Second))
	return s
}

// fixedEmbedder returns one random unit vector: the model's latency is not the store's.
type fixedEmbedder struct{ v []float32 }

func (f fixedEmbedder) Embed(_ context.Context, texts []string, _ bool) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f.v
	}
	return out, nil
}

func BenchmarkSearch100k(b *testing.B) {
	s := seedSearch(b)
	rng := rand.New(rand.NewPCG(3, 4))
	qv := make([]float32, benchDims)
	for j := range qv {
		qv[j] = float32(rng.NormFloat64())
	}
	tok := benchToken(1234)
	tokens := searchtest.FakeTokens(map[string]string{"203.0.113.7": tok})
	words := search.New(search.Options{IndicatorTokens: tokens})
	withVectors := search.New(search.Options{IndicatorTokens: tokens, Embedder: fixedEmbedder{qv}})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		s    *search.Searcher
		q    string
	}{
		// Zipf ranks: rank 2,000 is in about 1% of histories, rank 200 in about 10%, rank
		// 20 in most.
		{"words/rare", words, benchWord(2000)},
		{"words/two-medium", words, benchWord(200) + " " + benchWord(300)},
		{"words/common", words, benchWord(20)},
		{"indicator", words, "203.0.113.7"},
		{"indicator+word", words, "203.0.113.7 " + benchWord(2000)},
		{"vectors+words/rare", withVectors, benchWord(2000)},
		{"vectors+indicator", withVectors, "203.0.113.7"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				rs, err := tc.s.Search(ctx, s, search.Query{Text: tc.q, Limit: 20})
				if err != nil {
					b.Fatal(err)
				}
				n = len(rs)
			}
			b.ReportMetric(float64(n), "results")
		})
	}
}

// BenchmarkSaveTurn is one turn's save (2 new contents of about 1 KB each on a history of 10
// to 30) with the search index and without it. The two saves alternate, each timed, so that
// the load of a shared machine weighs on both alike; ns/op is the pair.
func BenchmarkSaveTurn(b *testing.B) {
	for _, size := range []int{10 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("transcript=%dKB", size>>10), func(b *testing.B) { benchmarkSaveTurn(b, size, turnEnglish) })
		b.Run(fmt.Sprintf("transcript=%dKB/ja", size>>10), func(b *testing.B) { benchmarkSaveTurn(b, size, turnJapanese) })
	}
}

// The turns BenchmarkSaveTurn adds, about 1 KB each: English, and Japanese (indexed as
// bigrams, about three times as many terms a byte).
var (
	turnEnglish  = strings.Repeat("The EC2 instance queried a known bad domain; GuardDuty rated it high. ", 15)
	turnJapanese = strings.Repeat("EC2インスタンスが既知の不審なドメインに問い合わせ、GuardDutyは重大度を高と評価しました。", 12)
)

// benchmarkSaveTurn saves turns of about 2 KB onto a history that starts at about size bytes
// and grows as a conversation does, with and without the search index, alternately so both
// see the same machine. The history's first save (which indexes it whole) is not timed.
func benchmarkSaveTurn(b *testing.B, size int, turn string) {
	ctx := context.Background()
	type side struct {
		s       *Store
		h       *record.History
		elapsed time.Duration
	}
	with, without := &side{s: benchStore(b)}, &side{s: benchStore(b)}
	without.s.noIndex = true
	for b.Loop() {
		for _, x := range []*side{without, with} {
			if x.h == nil {
				x.h = storetest.NewHistory("alert", storetest.Transcript(size))
				if err := x.s.SaveHistory(ctx, x.h); err != nil {
					b.Fatal(err)
				}
			}
			x.h.Contents = append(x.h.Contents, genai.NewContentFromText(turn, genai.RoleUser), genai.NewContentFromText(turn, genai.RoleModel))
			x.h.MessageCount = len(x.h.Contents)
			start := time.Now()
			if err := x.s.SaveHistory(ctx, x.h); err != nil {
				b.Fatal(err)
			}
			x.elapsed += time.Since(start)
		}
	}
	b.ReportMetric(float64(without.elapsed.Nanoseconds())/float64(b.N), "ns/save-unindexed")
	b.ReportMetric(float64(with.elapsed.Nanoseconds())/float64(b.N), "ns/save-indexed")
	b.ReportMetric(100*(float64(with.elapsed)/float64(without.elapsed)-1), "%added")
}

func mustTx(b *testing.B, s *Store) *sql.Tx {
	tx, err := s.db.BeginTx(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	return tx
}
