package builtin_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/tool/builtin"
)

type fakeKnowledge struct {
	got   string
	limit int
	err   error
}

func (f *fakeKnowledge) Search(_ context.Context, q string, limit int) ([]*record.Knowledge, error) {
	f.got, f.limit = q, limit
	if f.err != nil {
		return nil, f.err
	}
	return []*record.Knowledge{{ID: "1a2b3c4d-0000-4000-8000-000000000000", Text: "the scanner", Indicators: []string{"[REDACTED_IP_abc123]"},
		AlertTypes: []string{}, Author: "alice", CreatedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		Source: &record.KnowledgeSource{HistoryID: "6e6f461a-1111-4222-8333-444455556666", Verdict: record.VerdictFalsePositive}}}, nil
}

func TestSearchKnowledge(t *testing.T) {
	t.Parallel()
	find := func(k builtin.KnowledgeSearcher) map[string]any {
		for _, tl := range builtin.Tools(builtin.Deps{Knowledge: k}) {
			if tl.Declaration().Name == "search_knowledge" {
				return tl.Call(context.Background(), map[string]any{"query": "198.51.100.23", "limit": 3.0})
			}
		}
		return nil
	}
	if find(nil) != nil {
		t.Fatal("search_knowledge declared without knowledge (--no-knowledge)")
	}
	k := &fakeKnowledge{}
	out := find(k)
	rs, _ := out["results"].([]any)
	if k.got != "198.51.100.23" || k.limit != 3 || len(rs) != 1 {
		t.Fatalf("asked %q (%d), got %v", k.got, k.limit, out)
	}
	r := rs[0].(map[string]any)
	src, _ := r["source"].(map[string]any)
	if r["id"] != "K-1a2b3c4d" || r["text"] != "the scanner" || src["verdict"] != "false_positive" ||
		r["note"] != "[K-1a2b3c4d] as of 2026-11-20, by alice, from history 6e6f461a (false_positive): the scanner" {
		t.Fatalf("result %v", r)
	}
	if out := find(&fakeKnowledge{err: errors.New("boom")}); out["error"] != "failed to read knowledge" {
		t.Fatalf("a failure: %v", out)
	}
}
