package record

import "time"

// Triage is the first look an alert got on intake (alertchat triage): the verdict its
// investigation proposed, how sure the model was, and the evidence the proposal rests on.
type Triage struct {
	Verdict Verdict `json:"verdict"`
	// Confidence is the model's own, from 0 to 1.
	Confidence float64          `json:"confidence"`
	Evidence   []TriageEvidence `json:"evidence"`
	Model      string           `json:"model"`
	At         time.Time        `json:"at"`
}

// TriageEvidence is one value the proposal rests on and what it shows. Unsupported marks a
// value found neither in the alert nor in any tool result of the investigation.
type TriageEvidence struct {
	Value       string `json:"value"`
	Claim       string `json:"claim"`
	Unsupported bool   `json:"unsupported,omitempty"`
}

// AlertTriage is the alert's side of its triage: the history that holds the investigation,
// and what it proposed. It is written conditionally (store.AlertTriager), so that an alert
// two runs triage at once gets one triage.
type AlertTriage struct {
	HistoryID  HistoryID `json:"history_id"`
	Verdict    Verdict   `json:"verdict"`
	Confidence float64   `json:"confidence"`
	Model      string    `json:"model"`
	At         time.Time `json:"at"`
}

// AlertTriage is the alert's side of h's triage (nil without one).
func (h *History) AlertTriage() *AlertTriage {
	if h.Triage == nil {
		return nil
	}
	return &AlertTriage{HistoryID: h.ID, Verdict: h.Triage.Verdict, Confidence: h.Triage.Confidence, Model: h.Triage.Model, At: h.Triage.At}
}
