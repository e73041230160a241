package redacting_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/redacting"
)

// TestSaveRedactsKeepingTheAlertsValues: every history write through the layer is redacted
// with keyed tokens, and the values the history's alert holds are written as they are.
func TestSaveRedactsKeepingTheAlertsValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	backend, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	tok, err := redact.NewTokenizer([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	s := redacting.New(backend, redacthist.Engine(redact.New(redact.AllTypes()...).WithTokens(tok)))
	a := &record.Alert{ID: "alert-1", Data: []byte(`{"RemoteIp": "198.51.100.23"}`)}
	if _, err := s.PutAlert(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alert record.AlertID
		kept  bool
	}{{"alert-1", true}, {"alert-unknown", false}} {
		h := storetest.NewHistory(tc.alert, nil)
		h.Title = "198.51.100.23 and 203.0.113.7"
		// The conclusion's note is written like the rest; the names of analysts as given.
		h.Resolution = &record.Resolution{Verdict: record.VerdictBenign, Note: "198.51.100.23 and 203.0.113.7", ResolvedBy: "lead@example.com"}
		h.Questions = []record.Question{{Analyst: "alice@example.com"}}
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		got, err := backend.GetHistoryMeta(ctx, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Resolution.Note != got.Title || got.Resolution.ResolvedBy != "lead@example.com" || got.Analysts()[0] != "alice@example.com" {
			t.Errorf("%s: note %q (title %q), resolved by %q, asked by %v", tc.alert, got.Resolution.Note, got.Title, got.Resolution.ResolvedBy, got.Analysts())
		}
		if strings.Contains(got.Title, "203.0.113.7") || !regexp.MustCompile(`\[REDACTED_IP_[a-z0-9]+\]`).MatchString(got.Title) {
			t.Errorf("%s: the other IP is not tokenised: %q", tc.alert, got.Title)
		}
		if kept := strings.HasPrefix(got.Title, "198.51.100.23 "); kept != tc.kept {
			t.Errorf("%s: the alert's IP kept %v, want %v: %q", tc.alert, kept, tc.kept, got.Title)
		}
	}
}

// A knowledge entry's text and indicators are written redacted, with the keyed token the same
// value gets anywhere; its alert types are written as given.
func TestPutKnowledgeRedacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	backend, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backend.Close() })
	tok, err := redact.NewTokenizer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	eng := redact.New(redact.AllTypes()...).WithTokens(tok)
	s := redacting.New(backend, redacthist.Engine(eng))
	e := &record.Knowledge{ID: "k1", Text: "ops@example.com owns 198.51.100.23", Indicators: []string{"198.51.100.23", "ops@example.com", "scanner.example.com"},
		AlertTypes: []string{"Recon:EC2/PortProbeUnprotectedPort"}}
	if err := s.PutKnowledge(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := backend.GetKnowledge(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	ipTok, _ := eng.String("198.51.100.23")
	if strings.Contains(got.Text, "198.51.100.23") || strings.Contains(got.Text, "ops@example.com") || !strings.Contains(got.Text, ipTok) ||
		got.Indicators[0] != ipTok || !strings.HasPrefix(got.Indicators[1], "[REDACTED_EMAIL_") || got.Indicators[2] != "scanner.example.com" ||
		got.AlertTypes[0] != "Recon:EC2/PortProbeUnprotectedPort" {
		t.Fatalf("stored %+v", got)
	}
}
