package samechat_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/samechat"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// matcher answers with the candidate at index pick (-1: none) or err, and counts calls.
type matcher struct {
	pick  int
	err   error
	calls int
}

func (m *matcher) Match(_ context.Context, _ string, cs []*record.History, _ samechat.JudgeLoader) (*record.History, error) {
	m.calls++
	if m.err != nil || m.pick < 0 {
		return nil, m.err
	}
	return cs[m.pick], nil
}

// noLLM and noRedaction complete a session that is never asked anything here.
type noLLM struct{ llm.Generator }

type noRedaction struct{}

func (noRedaction) RedactContents([]*genai.Content) map[string]int { return nil }
func (noRedaction) RedactString(s string) (string, map[string]int) { return s, nil }

func TestRoute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a := &record.Alert{ID: "alert-1", Data: []byte(`{}`)}
	earlier := storetest.NewHistory(a.ID, []*genai.Content{
		genai.NewContentFromText("which host?", genai.RoleUser), genai.NewContentFromText("i-1", genai.RoleModel)})
	earlier.Title = "Host triage"
	if err := s.SaveHistory(ctx, earlier); err != nil {
		t.Fatal(err)
	}
	newSession := func(h *record.History) (*session.Session, error) {
		return session.New(session.Options{LLM: noLLM{}, Store: s, Redactor: noRedaction{}, Model: "m"}, a, h)
	}
	fresh, err := newSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	yes := func(string) bool { return true }
	no := func(string) bool { return false }
	tests := []struct {
		name      string
		m         *matcher
		auto      bool
		ask       func(string) bool
		question  string
		wantSame  bool
		wantCalls int
		notice    string
	}{
		{"accepted offer", &matcher{pick: 0}, false, yes, "and its IP?", true, 1, "Continuing"},
		{"declined offer", &matcher{pick: 0}, false, no, "and its IP?", false, 1, ""},
		{"auto takes the match", &matcher{pick: 0}, true, nil, "and its IP?", true, 1, "Continuing"},
		{"no match", &matcher{pick: -1}, true, nil, "something else", false, 1, "No earlier conversation"},
		{"judge fails: new conversation", &matcher{err: errors.New("model down")}, true, nil, "q", false, 1, "Could not tell"},
		{"nobody to ask, not auto: nothing judged", &matcher{pick: 0}, false, nil, "q", false, 0, ""},
		{"blank question: nothing judged", &matcher{pick: 0}, true, nil, "  ", false, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var notices []string
			var asked string
			ask := tc.ask
			if ask != nil {
				ask = func(d string) bool { asked = d; return tc.ask(d) }
			}
			r := &samechat.Router{Store: s, Matcher: tc.m, NewSession: newSession, Auto: tc.auto,
				Notify: func(m string) { notices = append(notices, m) }}
			got := r.Route(ctx, fresh, tc.question, ask)
			if same := got.History().ID == earlier.ID; same != tc.wantSame || tc.m.calls != tc.wantCalls {
				t.Fatalf("continued the earlier conversation: %v (want %v), %d judgements (want %d)", same, tc.wantSame, tc.m.calls, tc.wantCalls)
			}
			if tc.wantSame && len(got.History().Contents) != 2 {
				t.Fatalf("the continued session lacks the earlier turns: %d contents", len(got.History().Contents))
			}
			if ask != nil && tc.m.calls > 0 && !strings.Contains(asked, `"Host triage"`) {
				t.Errorf("the offer does not name the conversation: %q", asked)
			}
			if tc.notice != "" && (len(notices) == 0 || !strings.Contains(notices[len(notices)-1], tc.notice)) {
				t.Errorf("notices %q, want one with %q", notices, tc.notice)
			}
		})
	}
	if samechat.Applies(fresh, true) || !samechat.Applies(fresh, false) {
		t.Error("Applies: a resume asked for is never offered another conversation; a new one is")
	}
	resumed, _ := newSession(earlier)
	if samechat.Applies(resumed, false) {
		t.Error("Applies: a resumed conversation is not offered another one")
	}
}
