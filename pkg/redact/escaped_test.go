package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// Tool results reach the redactor as JSON, and a tool result quoted in another one is
// escaped twice: what the sets find in plain text must be found there too. Each record is
// put in a tool result's text once and twice, its spans moved with the escaping, and scored.
func TestEvalSetEscaped(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"presidio-research", "detect-secrets-fixtures", "gitleaks-fixtures", "evalset-third"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			recs := loadRecords(t, "testdata/"+name+".jsonl")
			plain := scoreRecords(t, recs)
			once := escapedRecords(t, recs)
			twice := escapedRecords(t, once)
			for level, rs := range [][]corpusRecord{once, twice} {
				if sc := scoreRecords(t, rs); sc.recall < plain.recall-0.005 {
					t.Errorf("escaped %d time(s): recall %.3f, plain text %.3f", level+1, sc.recall, plain.recall)
				}
			}
		})
	}
}

// escapedRecords puts each record's text in a tool result's JSON, the spans moved to where
// their bytes are escaped.
func escapedRecords(t *testing.T, recs []corpusRecord) []corpusRecord {
	t.Helper()
	const head = `{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"`
	out := make([]corpusRecord, 0, len(recs))
	for _, r := range recs {
		cuts := []int{0, len(r.Text)}
		for _, s := range r.Spans {
			cuts = append(cuts, s.Start, s.End)
		}
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		at := map[int]int{}
		var b bytes.Buffer
		b.WriteString(head)
		for i := 0; i+1 < len(cuts); i++ {
			at[cuts[i]] = b.Len()
			b.Write(jsonEscaped(t, r.Text[cuts[i]:cuts[i+1]]))
		}
		at[len(r.Text)] = b.Len()
		b.WriteString(`"}]}`)
		e := corpusRecord{ID: r.ID, Text: b.String()}
		for _, s := range r.Spans {
			s.Start, s.End = at[s.Start], at[s.End]
			e.Spans = append(e.Spans, s)
		}
		out = append(out, e)
	}
	return out
}

// jsonEscaped is s as it is written inside a JSON string.
func jsonEscaped(t *testing.T, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	q := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return q[1 : len(q)-1]
}
