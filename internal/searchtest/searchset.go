package searchtest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
)

// SearchSetHistory and SearchSetQuery are the records of the multilingual search set in
// testdata/search-cjk (see its gen.py): histories in Japanese, English, both, and a few in
// Korean and Chinese, and queries with the histories relevant to them, judged by topic.
type SearchSetHistory struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Lang   string   `json:"lang"`
	Topics []string `json:"topics"`
	Turns  []string `json:"turns"`
}

type SearchSetQuery struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// LoadSearchSet reads the search set from the repository's testdata.
func LoadSearchSet(t testing.TB) ([]SearchSetHistory, []SearchSetQuery) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	set := filepath.Join(dir, "testdata", "search-cjk")
	return readJSONL[SearchSetHistory](t, filepath.Join(set, "histories.jsonl")), readJSONL[SearchSetQuery](t, filepath.Join(set, "queries.jsonl"))
}

func readJSONL[T any](t testing.TB, path string) []T {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// PrecisionAt is the share of the first k results that are relevant, out of min(k, number of
// relevant histories), so a query with two relevant histories found first scores 1.
func PrecisionAt(k int, got []string, relevant []string) float64 {
	n := min(k, len(relevant))
	if n == 0 {
		return 0
	}
	hit := 0
	for _, id := range got[:min(k, len(got))] {
		if slices.Contains(relevant, id) {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

// testSearchSetCJK saves the search set and scores every query through pkg/search: Japanese,
// Chinese and Korean words are found with or without spaces around them, and English queries
// keep working beside them.
func testSearchSetCJK(t *testing.T, h *storetest.Harness) {
	s := h.Open(t, "ws")
	hs, qs := LoadSearchSet(t)
	ids := map[record.HistoryID]string{}
	for _, x := range hs {
		hist := titled(record.AlertID("alert-"+x.Topics[0]), x.Title, x.Turns...)
		storetest.Save(t, s, hist)
		ids[hist.ID] = x.ID
	}
	var p1, p5 float64
	for _, q := range qs {
		var got []string
		for _, id := range find(t, s, search.Options{}, search.Query{Text: q.Query, Limit: 5}) {
			got = append(got, ids[id])
		}
		a, b := PrecisionAt(1, got, q.Relevant), PrecisionAt(5, got, q.Relevant)
		p1 += a
		p5 += b
		if a < 1 {
			t.Logf("%-24s P@1 %.2f P@5 %.2f got %v", q.Query, a, b, got)
		}
		// The words the product is asked about most must be found first in every store.
		switch q.Query {
		case "侵害", "ログイン", "不審な通信", "権限昇格", "ransomware", "lateral movement":
			if a < 1 || b < 0.8 {
				t.Errorf("search %q: P@1 %.2f, P@5 %.2f; got %v, relevant %v", q.Query, a, b, got, q.Relevant)
			}
		}
	}
	p1 /= float64(len(qs))
	p5 /= float64(len(qs))
	t.Logf("%d histories, %d queries: P@1 %.3f, P@5 %.3f", len(hs), len(qs), p1, p5)
	if p1 < minSetP1 || p5 < minSetP5 {
		t.Errorf("search set: P@1 %.3f, P@5 %.3f; want at least %.2f and %.2f", p1, p5, minSetP1, minSetP5)
	}
}

// The floors the search set must keep (measured: see docs/histories-and-search.md, "Text in every script").
const minSetP1, minSetP5 = 0.85, 0.75
