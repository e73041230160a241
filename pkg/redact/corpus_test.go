package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// The development corpus of the PII scorer sits beside the repository:
// <root>/shared/pii/dev.jsonl with the repository at <root>/main.
const corpusPath = "../../../shared/pii/dev.jsonl"

type corpusSpan struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Type  string `json:"type"`
	Scope string `json:"scope"`
}

type corpusRecord struct {
	ID    string       `json:"id"`
	Text  string       `json:"text"`
	Spans []corpusSpan `json:"spans"`
}

func loadCorpus(tb testing.TB) []corpusRecord { return loadRecords(tb, corpusPath) }

// loadRecords reads a corpus in the scorer's JSONL format.
func loadRecords(tb testing.TB, path string) []corpusRecord {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("corpus %s (relative to pkg/redact): %v", path, err)
	}
	defer f.Close()
	var recs []corpusRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r corpusRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("%s line %d: %v", path, len(recs)+1, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(recs) == 0 {
		tb.Fatalf("empty corpus %s", path)
	}
	return recs
}

// TestCorpus runs the development corpus through the engine and checks the
// scorer's strict metrics with a direct span comparison: a gold span is
// found when one match of the same type covers it; a match is correct when
// it overlaps a gold span of its type, and is ignored when it only overlaps
// out-of-scope spans (PERSON, IBAN, ...).
func TestCorpus(t *testing.T) {
	t.Parallel()
	sc := scoreRecords(t, loadCorpus(t))
	for ty, st := range sc.types {
		if st.gold > 0 {
			if rec := float64(st.found) / float64(st.gold); rec < 0.90 {
				t.Errorf("%s recall %.3f < 0.90", ty, rec)
			}
		}
	}
	if sc.recall < 0.95 || sc.precision < 0.95 {
		t.Errorf("recall %.3f precision %.3f, want both >= 0.95", sc.recall, sc.precision)
	}
}

type typeStat struct{ gold, found, regions, tp int }

type corpusScore struct {
	types             map[string]*typeStat
	recall, precision float64
}

// scoreRecords runs records through the engine and computes the scorer's
// strict metrics with a direct span comparison: a gold span is found when
// one match of the same type covers it; a match is correct when it overlaps
// a gold span of its type, and is ignored when it only overlaps
// out-of-scope spans. Misses and false positives are logged.
func scoreRecords(t *testing.T, recs []corpusRecord) corpusScore {
	t.Helper()
	type stat = typeStat
	stats := map[string]*stat{}
	for _, ty := range AllTypes() {
		stats[string(ty)] = &stat{}
	}
	for _, r := range recs {
		sc := getScanner()
		ms := append([]match(nil), sc.find(r.Text)...)
		putScanner(sc)
		for _, g := range r.Spans {
			if g.Scope != "in" {
				continue
			}
			st := stats[g.Type]
			st.gold++
			ok := false
			for _, m := range ms {
				if m.typ != tKeep && string(allTypes[m.typ]) == g.Type && m.start <= g.Start && m.end >= g.End {
					ok = true
				}
			}
			if ok {
				st.found++
			} else {
				t.Logf("%s: missed %s %q", r.ID, g.Type, r.Text[g.Start:g.End])
			}
		}
		for _, m := range ms {
			if m.typ == tKeep {
				continue
			}
			ty := string(allTypes[m.typ])
			inGold, inExtra, tp := false, false, false
			for _, g := range r.Spans {
				if m.start < g.End && g.Start < m.end {
					if g.Scope == "in" {
						inGold = true
						tp = tp || g.Type == ty
					} else {
						inExtra = true
					}
				}
			}
			if !inGold && inExtra {
				continue
			}
			stats[ty].regions++
			if tp {
				stats[ty].tp++
			} else {
				t.Logf("%s: false positive %s %q", r.ID, ty, r.Text[m.start:m.end])
			}
		}
	}
	var gold, found, regions, tp int
	for _, st := range stats {
		gold += st.gold
		found += st.found
		regions += st.regions
		tp += st.tp
	}
	rec := float64(found) / float64(max(gold, 1))
	prec := float64(tp) / float64(max(regions, 1))
	t.Logf("corpus: %d records, recall %.3f (%d/%d), precision %.3f (%d/%d)", len(recs), rec, found, gold, prec, tp, regions)
	return corpusScore{types: stats, recall: rec, precision: prec}
}

// BenchmarkCorpus mimics the scorer's throughput run: the corpus texts are
// redacted one call per text, cycled.
func BenchmarkCorpus(b *testing.B) {
	recs := loadCorpus(b)
	total := 0
	for _, r := range recs {
		total += len(r.Text)
	}
	b.SetBytes(int64(total))
	for b.Loop() {
		for _, r := range recs {
			all.redact(r.Text, nil)
		}
	}
}

// BenchmarkCorpusBlob mimics the scorer's text-mode run: the corpus texts
// joined by newlines into one large string, redacted in one call.
func BenchmarkCorpusBlob(b *testing.B) {
	recs := loadCorpus(b)
	var sb []byte
	for len(sb) < 8<<20 {
		for _, r := range recs {
			sb = append(sb, r.Text...)
			sb = append(sb, '\n')
		}
	}
	blob := string(sb)
	b.SetBytes(int64(len(blob)))
	for b.Loop() {
		all.redact(blob, nil)
	}
}
