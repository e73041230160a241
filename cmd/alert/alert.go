// Package alert is "alertchat alert": add, list and show the alerts conversations are about.
package alert

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
)

// NewCmdAlert is "alertchat alert".
func NewCmdAlert(f *factory.Factory) *cli.Command {
	return &cli.Command{
		Name:  "alert",
		Usage: "add, pull, list, show and search alerts",
		Description: `Alerts are the evidence under analysis: stored as given (never redacted), one ID per finding,
the same finding giving the same ID. IDs may be shortened to a unique prefix of 8 or more characters.

Examples:
  alertchat alert add -f findings.json
  alertchat alert list --limit 20
  alertchat alert search 198.51.100.23`,
		Commands: []*cli.Command{
			NewCmdAdd(f, nil),
			NewCmdList(f, nil),
			NewCmdShow(f, nil),
			NewCmdSearch(f, nil),
			NewCmdPull(f, nil),
		},
	}
}

// openStore is what every alert verb needs from the factory.
type openStore func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error)

type alertJSON struct {
	ID        record.AlertID  `json:"id"`
	Title     string          `json:"title"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data,omitempty"`
	// Severity and Source are null when the alert follows no known schema; Time, when the
	// tool says the finding happened, null when it does not say.
	Severity *string `json:"severity"`
	Source   *string `json:"source"`
	Time     *string `json:"time"`
	// Status says the finding's tool closed it (resolved, suppressed, archived, inactive); null
	// while it is open.
	Status *string `json:"status"`
	// Triage is the proposal of the alert's first look (alertchat triage), null without one.
	Triage *triageJSON `json:"triage"`
	investigationsJSON
}

// triageJSON is an alert's triage in -o json.
type triageJSON struct {
	Verdict    record.Verdict   `json:"verdict"`
	Confidence float64          `json:"confidence"`
	Model      string           `json:"model"`
	At         string           `json:"at"`
	HistoryID  record.HistoryID `json:"history_id"`
}

func newTriageJSON(t *record.AlertTriage) *triageJSON {
	if t == nil {
		return nil
	}
	return &triageJSON{Verdict: t.Verdict, Confidence: t.Confidence, Model: t.Model, At: format.RFC3339(t.At), HistoryID: t.HistoryID}
}

// triageCell is an alert's triage in a table: "false_positive 0.82", "-" without one.
func triageCell(t *record.AlertTriage) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%s %.2f", t.Verdict, t.Confidence)
}

// newAlertJSON is a's -o json form.
func newAlertJSON(a *record.Alert) alertJSON {
	j := alertJSON{ID: a.ID, Title: a.Title, CreatedAt: format.RFC3339(a.CreatedAt), Data: a.Data}
	if a.Severity != "" {
		j.Severity = &a.Severity
	}
	if a.Source != "" {
		j.Source = &a.Source
	}
	if a.Status != "" {
		j.Status = &a.Status
	}
	if !a.Time.IsZero() {
		t := format.RFC3339(a.Time)
		j.Time = &t
	}
	j.Triage = newTriageJSON(a.Triage)
	return j
}

// orDash is a table cell for a fact an alert may lack.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
