// Package searchtest runs history search, as the command line does (pkg/search), against a
// store that keeps a search index: one suite both stores run from their tests. It lives with
// search, not with the store's conformance suite, so storetest never imports upward.
package searchtest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
)

// RunSearch runs the search cases against a backend that keeps a search index
// (store.Searcher), through pkg/search as the command line does.
func RunSearch(t *testing.T, newHarness func(t testing.TB) *storetest.Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *storetest.Harness)
	}{
		{"RanksByWords", testSearchRanksByWords},
		{"ByIndicatorToken", testSearchByIndicator},
		{"AlertFilter", testSearchAlertFilter},
		{"OtherWorkspaceFindsNothing", testSearchWorkspaceIsolation},
		{"IndexFollowsWrites", testSearchFollowsWrites},
		{"SearchSetCJK", testSearchSetCJK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newHarness(t))
		})
	}
}

// FakeTokens stands for the keyed redaction of the workspace: the raw values it knows become
// their tokens, as redaction would write them.
func FakeTokens(known map[string]string) func(string) []string {
	return func(q string) []string {
		var out []string
		for _, f := range strings.Fields(q) {
			if tok, ok := known[f]; ok {
				out = append(out, tok)
			}
		}
		return out
	}
}

func turns(texts ...string) []*genai.Content {
	var out []*genai.Content
	for i, s := range texts {
		role := genai.RoleUser
		if i%2 == 1 {
			role = genai.RoleModel
		}
		out = append(out, genai.NewContentFromText(s, genai.Role(role)))
	}
	return out
}

func titled(alert record.AlertID, title string, texts ...string) *record.History {
	h := storetest.NewHistory(alert, turns(texts...))
	h.Title = title
	return h
}

func find(t testing.TB, s store.Store, o search.Options, q search.Query) []record.HistoryID {
	t.Helper()
	rs, err := search.New(o).Search(context.Background(), s, q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	var ids []record.HistoryID
	for _, r := range rs {
		if r.History.Workspace == "" || r.History.Title == "" && r.History.MessageCount == 0 {
			t.Errorf("search %q: result %s without metadata", q.Text, r.History.ID)
		}
		ids = append(ids, r.History.ID)
	}
	return ids
}

func testSearchRanksByWords(t *testing.T, h *storetest.Harness) {
	s := h.Open(t, "ws")
	strong := titled("alert-1", "Lateral movement over SMB", "Is this SMB traffic lateral movement?", "Yes: SMB sessions from the host to five peers look like lateral movement.")
	weak := titled("alert-2", "Login from a new country", "Who logged in from abroad?", "An admin; later the host also opened one SMB share, which is routine.")
	other := titled("alert-3", "Crypto mining", "Why is CPU at 100%?", "A miner process was started by cron.")
	for _, x := range []*record.History{strong, weak, other} {
		storetest.Save(t, s, x)
	}
	got := find(t, s, search.Options{}, search.Query{Text: "SMB lateral movement"})
	if want := []record.HistoryID{strong.ID, weak.ID}; !slices.Equal(got, want) {
		t.Fatalf("search = %v, want %v (strong, then weak; not the unrelated one)", got, want)
	}
	rs, err := search.New(search.Options{}).Search(context.Background(), s, search.Query{Text: "crypto"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || !strings.Contains(rs[0].Snippet, store.SnippetOpen+"Crypto"+store.SnippetClose) {
		t.Fatalf("snippet of %q = %+v, want the match marked", "crypto", rs)
	}
	if got := find(t, s, search.Options{}, search.Query{Text: "kubernetes"}); len(got) != 0 {
		t.Fatalf("search for an absent word = %v, want nothing", got)
	}
	if got := find(t, s, search.Options{}, search.Query{Text: `" OR * NEAR( -`}); len(got) != 0 {
		t.Fatalf("search for punctuation = %v, want nothing (and no error)", got)
	}
}

func testSearchByIndicator(t *testing.T, h *storetest.Harness) {
	s := h.Open(t, "ws")
	const tok = "[REDACTED_IP_k3j2h1a]"
	holds := titled("alert-1", "Outbound traffic", "Where does "+tok+" belong?", "The host "+tok+" is a known scanner.")
	otherTok := titled("alert-2", "Outbound traffic", "And [REDACTED_IP_zz9y8x7]?", "Another scanner.")
	storetest.Save(t, s, holds)
	storetest.Save(t, s, otherTok)
	o := search.Options{IndicatorTokens: FakeTokens(map[string]string{"203.0.113.7": tok, "198.51.100.9": "[REDACTED_IP_q1w2e3r]"})}
	if got := find(t, s, o, search.Query{Text: "203.0.113.7"}); !slices.Equal(got, []record.HistoryID{holds.ID}) {
		t.Fatalf("search by raw IP = %v, want only %s, which stored its token", got, holds.ID)
	}
	if got := find(t, s, o, search.Query{Text: "198.51.100.9"}); len(got) != 0 {
		t.Fatalf("search by a raw IP no history holds = %v, want nothing", got)
	}
	if got := find(t, s, search.Options{}, search.Query{Text: "203.0.113.7"}); len(got) != 0 {
		t.Fatalf("search by raw IP without its token = %v, want nothing: nothing raw is stored", got)
	}
}

func testSearchAlertFilter(t *testing.T, h *storetest.Harness) {
	s := h.Open(t, "ws")
	a := titled("alert-a", "Beaconing", "periodic beaconing to a domain")
	b := titled("alert-b", "Beaconing", "periodic beaconing again")
	storetest.Save(t, s, a)
	storetest.Save(t, s, b)
	if got := find(t, s, search.Options{}, search.Query{Text: "beaconing"}); len(got) != 2 {
		t.Fatalf("search = %v, want both", got)
	}
	if got := find(t, s, search.Options{}, search.Query{Text: "beaconing", AlertID: "alert-b"}); !slices.Equal(got, []record.HistoryID{b.ID}) {
		t.Fatalf("search -a alert-b = %v, want %s", got, b.ID)
	}
}

func testSearchWorkspaceIsolation(t *testing.T, h *storetest.Harness) {
	s1, s2 := h.Open(t, "ws1"), h.Open(t, "ws2")
	const tok = "[REDACTED_EMAIL_abcdef1]"
	storetest.Save(t, s1, titled("alert-1", "Phishing report", "mail from "+tok+" with a macro"))
	o := search.Options{IndicatorTokens: FakeTokens(map[string]string{"bob@example.com": tok})}
	if got := find(t, s1, o, search.Query{Text: "phishing bob@example.com"}); len(got) != 1 {
		t.Fatalf("own workspace = %v, want 1", got)
	}
	if got := find(t, s2, o, search.Query{Text: "phishing bob@example.com"}); len(got) != 0 {
		t.Fatalf("another workspace found %v, want nothing", got)
	}
}

func testSearchFollowsWrites(t *testing.T, h *storetest.Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws")
	o := search.Options{}
	x := titled("alert-1", "Suspicious PowerShell", "encoded powershell command")
	storetest.Save(t, s, x)
	// A new turn is indexed.
	x.Contents = append(x.Contents, turns("", "it downloads mimikatz")[1])
	x.MessageCount = len(x.Contents)
	storetest.Save(t, s, x)
	if got := find(t, s, o, search.Query{Text: "mimikatz"}); !slices.Equal(got, []record.HistoryID{x.ID}) {
		t.Fatalf("after a new turn: %v, want %s", got, x.ID)
	}
	if got := find(t, s, o, search.Query{Text: "powershell"}); !slices.Equal(got, []record.HistoryID{x.ID}) {
		t.Fatalf("earlier turns after a new turn: %v, want %s once", got, x.ID)
	}
	// A rename replaces the title's words.
	x.Title, x.TitleSource = "Credential dumping", record.TitleManual
	storetest.Save(t, s, x)
	if got := find(t, s, o, search.Query{Text: "credential dumping"}); !slices.Equal(got, []record.HistoryID{x.ID}) {
		t.Fatalf("after rename: %v, want %s", got, x.ID)
	}
	if got := find(t, s, o, search.Query{Text: "suspicious"}); len(got) != 0 {
		t.Fatalf("the old title still matches: %v", got)
	}
	// A summary is searchable.
	x.Summary = &record.Summary{Text: "The analyst concluded it was a red team exercise.", CoversCount: 2, CreatedAt: store.Now()}
	storetest.Save(t, s, x)
	if got := find(t, s, o, search.Query{Text: "exercise"}); !slices.Equal(got, []record.HistoryID{x.ID}) {
		t.Fatalf("summary: %v, want %s", got, x.ID)
	}
	// A fork is indexed with what it shares and what it adds.
	fork := titled("alert-1", "Credential dumping", "encoded powershell command", "it downloads mimikatz", "then lsass was read")
	fork.ParentID, fork.ForkPoint = x.ID, 2
	storetest.Save(t, s, fork)
	if got := find(t, s, o, search.Query{Text: "lsass"}); !slices.Equal(got, []record.HistoryID{fork.ID}) {
		t.Fatalf("fork's own turn: %v, want %s", got, fork.ID)
	}
	if got := find(t, s, o, search.Query{Text: "mimikatz"}); len(got) != 2 {
		t.Fatalf("shared turn: %v, want parent and fork", got)
	}
	// A deletion (rm, prune) removes it from the index.
	if err := s.DeleteHistory(ctx, x.ID); err != nil {
		t.Fatal(err)
	}
	if got := find(t, s, o, search.Query{Text: "mimikatz"}); !slices.Equal(got, []record.HistoryID{fork.ID}) {
		t.Fatalf("after delete: %v, want only the fork %s", got, fork.ID)
	}
}
