package alert_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/pkg/record"
)

// An alert's triage shows in alert list (the TRIAGE column, "triage" in JSON, --triage V keeps
// that proposal's alerts) and in alert show (JSON, and on stderr beside the alert as stored);
// --triage takes only a verdict's name.
func TestAlertTriageShown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := clitest.Run(t, dir, `{"title":"scan one"}`+"\n"+`{"title":"scan two"}`+"\n", "alert", "add", "-f", "-")
	ids := strings.Fields(out)
	if code != 0 || len(ids) != 2 {
		t.Fatalf("add: exit %d: %s", code, errOut)
	}
	s := clitest.OpenLocal(t, dir, "default")
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	if err := s.TriageAlert(context.Background(), record.AlertID(ids[0]), &record.AlertTriage{HistoryID: "h-1", Verdict: record.VerdictFalsePositive,
		Confidence: 0.82, Model: "gemini-3.8-flash", At: at}, ""); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()

	if out, _, _ := clitest.Run(t, dir, "", "alert", "list"); !strings.Contains(out, "\tfalse_positive 0.82\tscan one") || !strings.Contains(out, "\t-\tscan two") {
		t.Fatalf("list: %q", out)
	}
	out, errOut, code = clitest.Run(t, dir, "", "alert", "list", "--triage", "false_positive", "-o", "json")
	var listed []struct {
		ID     string `json:"id"`
		Triage *struct {
			Verdict    string  `json:"verdict"`
			Confidence float64 `json:"confidence"`
			HistoryID  string  `json:"history_id"`
			At         string  `json:"at"`
		} `json:"triage"`
	}
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 1 || listed[0].ID != ids[0] || listed[0].Triage == nil ||
		listed[0].Triage.HistoryID != "h-1" || listed[0].Triage.At != "2026-11-20T09:00:00Z" {
		t.Fatalf("--triage: exit %d: %s %s", code, out, errOut)
	}
	if out, _, _ := clitest.Run(t, dir, "", "alert", "show", ids[1], "-o", "json"); !strings.Contains(out, `"triage": null`) {
		t.Fatalf("show untriaged: %s", out)
	}
	out, errOut, _ = clitest.Run(t, dir, "", "alert", "show", ids[0])
	if strings.TrimSpace(out) != `{"title":"scan one"}` || !strings.Contains(errOut, "Triage: false_positive 0.82 (gemini-3.8-flash, 2026-11-20T09:00:00Z), history h-1") {
		t.Fatalf("show: %q %q", out, errOut)
	}
	if _, errOut, code := clitest.Run(t, dir, "", "alert", "list", "--triage", "maybe"); code != 2 || !strings.Contains(errOut, "maybe") {
		t.Fatalf("bad --triage: exit %d: %s", code, errOut)
	}
}
