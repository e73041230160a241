package builtin_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/tool"
	"github.com/alertchat/alertchat/pkg/tool/builtin"
)

func openStore(t *testing.T, ws string, dir string) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func registry(t *testing.T, s *local.Store) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry(builtin.Tools(builtin.Deps{Store: s, Searcher: search.New(search.Options{}), SearchStore: s, Alerts: s})...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// Bad arguments, an ambiguous prefix, another workspace's record: each is a result the model
// can read, never a crash.
func TestBuiltinBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, other := openStore(t, "ws", dir), openStore(t, "other", dir)
	for i, id := range []record.AlertID{"abcdef12-0001", "abcdef12-0002"} {
		sev := []string{"high", "low"}[i]
		if _, err := s.PutAlert(ctx, &record.Alert{ID: id, Title: "t", Severity: sev, Source: "falco", Data: []byte(`{"ip":"203.0.113.7"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	h := storetest.NewHistory("abcdef12-0001", storetest.Transcript(200))
	storetest.Save(t, other, h)
	reg := registry(t, s)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"get_alert", map[string]any{}, "missing argument"},
		{"get_alert", map[string]any{"alert_id": 42.0}, "must be a string"},
		{"get_alert", map[string]any{"alert_id": "abc"}, "too short"},
		{"get_alert", map[string]any{"alert_id": "abcdef12"}, "matches several"},
		{"get_alert", map[string]any{"alert_id": "ffffffff-none"}, "not found"},
		{"get_history", map[string]any{"history_id": string(h.ID)}, "not found"},
		{"get_history", map[string]any{"history_id": string(h.ID), "turns": "many"}, "must be a number"},
		{"search_histories", map[string]any{"query": ""}, "empty"},
		{"search_alerts", map[string]any{"query": "x", "limit": 1000.0}, "from 1 to"},
		{"search_alerts", map[string]any{"query": "x", "severity": "urgent"}, "severity must be one of"},
		{"search_alerts", map[string]any{"query": "x", "source": 3.0}, "must be a string"},
		{"drop_tables", map[string]any{}, "unknown tool"},
	} {
		res := reg.Call(ctx, tc.name, tc.args)
		msg, _ := res["error"].(string)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s %v: %v, want an error saying %q", tc.name, tc.args, res, tc.want)
		}
	}
	res := reg.Call(ctx, "get_alert", map[string]any{"alert_id": "abcdef12-0002"})
	if res["id"] != "abcdef12-0002" || res["alert"].(map[string]any)["ip"] != "203.0.113.7" {
		t.Fatalf("get_alert: %v", res)
	}
	res = reg.Call(ctx, "search_alerts", map[string]any{"query": "203.0.113.7"})
	if n := len(res["results"].([]any)); n != 2 {
		t.Fatalf("search_alerts: %v", res)
	}
	res = reg.Call(ctx, "search_alerts", map[string]any{"query": "203.0.113.7", "severity": "HIGH", "source": "falco"})
	if rs := res["results"].([]any); len(rs) != 1 || rs[0].(map[string]any)["id"] != "abcdef12-0001" || rs[0].(map[string]any)["severity"] != "high" {
		t.Fatalf("search_alerts by severity: %v", res)
	}
	res = reg.Call(ctx, "search_alerts", map[string]any{"query": "203.0.113.7", "source": "scc"})
	if rs := res["results"].([]any); len(rs) != 0 {
		t.Fatalf("search_alerts by source: %v", res)
	}
}

// The declarations every request carries stay small.
func TestDeclarationsAreSmall(t *testing.T) {
	t.Parallel()
	s := openStore(t, "ws", t.TempDir())
	b, err := json.Marshal(registry(t, s).Declarations())
	if err != nil {
		t.Fatal(err)
	}
	// About four bytes a token: 1,600 bytes is some 400 tokens.
	if len(b) > 1600 {
		t.Fatalf("the tool declarations are %d bytes", len(b))
	}
	t.Logf("tool declarations: %d bytes of JSON", len(b))
}

// Conclusions travel: get_history and search_histories say how each history ended, null while
// it is open.
func TestToolsCarryVerdicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, "ws", t.TempDir())
	open := storetest.NewHistory("alert-1", storetest.Transcript(200))
	open.Title = "Probe from 203.0.113.7, still looking"
	done := storetest.NewHistory("alert-2", storetest.Transcript(200))
	done.Title = "Probe from 203.0.113.7, our scanner"
	storetest.Save(t, s, open)
	storetest.Save(t, s, done)
	if _, err := storetest.Resolve(ctx, s, done.ID, record.VerdictFalsePositive, "alice", store.Now()); err != nil {
		t.Fatal(err)
	}
	reg := registry(t, s)
	res := reg.Call(ctx, "search_histories", map[string]any{"query": "probe"})
	results, _ := res["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("search_histories: %v", res)
	}
	seen := 0
	for _, r := range results {
		m := r.(map[string]any)
		v, hasV := m["verdict"]
		by, hasBy := m["resolved_by"]
		switch m["id"] {
		case string(done.ID):
			seen++
			if v != "false_positive" || by != "alice" {
				t.Errorf("resolved result: %v", m)
			}
		case string(open.ID):
			seen++
			if !hasV || !hasBy || v != nil || by != nil {
				t.Errorf("open result: %v", m)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("results %v", results)
	}
	got := reg.Call(ctx, "get_history", map[string]any{"history_id": string(done.ID)[:8]})
	if got["verdict"] != "false_positive" || got["resolved_by"] != "alice" || got["conclusion"] != "concluded by alice" || got["resolved_at"] == nil {
		t.Fatalf("get_history: %v", got)
	}
	got = reg.Call(ctx, "get_history", map[string]any{"history_id": string(open.ID)})
	if v, ok := got["verdict"]; !ok || v != nil {
		t.Fatalf("get_history of an open history: %v", got)
	}
	// What the model receives is JSON: null, not a missing key.
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), `"verdict":null`) || !strings.Contains(string(b), `"resolved_by":null`) {
		t.Fatalf("as sent: %s", b)
	}
}

// The search tools' snippets are plain text: the store's match markers (control characters the
// command line turns into highlighting) never reach the model or the transcript.
func TestSearchSnippetsArePlainText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, "ws", t.TempDir())
	if _, err := s.PutAlert(ctx, &record.Alert{ID: "alert-1", Title: "Probe", Data: []byte(`{"title": "Port probe", "src": "203.0.113.7"}`)}); err != nil {
		t.Fatal(err)
	}
	h := storetest.NewHistory("alert-1", storetest.Transcript(200))
	h.Title = "Probe from our scanner"
	storetest.Save(t, s, h)
	reg := registry(t, s)
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"search_alerts", map[string]any{"query": "203.0.113.7"}},
		{"search_histories", map[string]any{"query": "probe"}},
	} {
		res := reg.Call(ctx, call.name, call.args)
		results, _ := res["results"].([]any)
		if len(results) != 1 {
			t.Fatalf("%s: %v", call.name, res)
		}
		snippet, _ := results[0].(map[string]any)["snippet"].(string)
		if snippet == "" || strings.ContainsAny(snippet, store.SnippetOpen+store.SnippetClose) {
			t.Errorf("%s: snippet %q", call.name, snippet)
		}
	}
}
