package redacthist_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
)

// A triage proposal's evidence is written redacted, as the rest of its history: a value the
// alert holds stays as it is with the alert's redactor, any other personal value is replaced,
// and the counts add to the history's.
func TestHistoryRedactsTriageEvidence(t *testing.T) {
	t.Parallel()
	alert := &record.Alert{ID: "a", Data: json.RawMessage(`{"src":"10.1.2.3"}`)}
	r := redacthist.Engine(redact.New(redact.AllTypes()...)).ForAlert(alert)
	h := &record.History{AlertID: "a", Triage: &record.Triage{Verdict: record.VerdictBenign, Evidence: []record.TriageEvidence{
		{Value: "10.1.2.3", Claim: "the alert's source"},
		{Value: "bob@corp.example", Claim: "mailed 10.9.9.9"},
	}}}
	redacthist.History(r, h)
	ev := h.Triage.Evidence
	if ev[0].Value != "10.1.2.3" || strings.Contains(ev[1].Value, "bob@") || strings.Contains(ev[1].Claim, "10.9.9.9") || h.Redactions == nil {
		t.Fatalf("evidence %+v, redactions %v", ev, h.Redactions)
	}
}
