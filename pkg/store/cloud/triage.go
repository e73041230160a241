package cloud

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/grpc/codes"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// An alert's triage, in its document:
//
//   - triage_verdict: the triage's verdict, "" while untriaged, written with every new alert
//     so that the untriaged alerts are the equality filter triage_verdict == "" on the index
//     (workspace, triage_verdict, created_at desc, __name__ desc). Alerts stored before
//     triage existed lack the field, which no filter matches: name them to alertchat triage.
//   - triage: {history_id, verdict, confidence, model, at}, absent while untriaged.

var _ store.AlertTriager = (*Store)(nil)

type alertTriageDoc struct {
	HistoryID  string    `firestore:"history_id"`
	Verdict    string    `firestore:"verdict"`
	Confidence float64   `firestore:"confidence"`
	Model      string    `firestore:"model"`
	At         time.Time `firestore:"at"`
}

func (d *alertTriageDoc) triage() *record.AlertTriage {
	if d == nil {
		return nil
	}
	return &record.AlertTriage{HistoryID: record.HistoryID(d.HistoryID), Verdict: record.Verdict(d.Verdict), Confidence: d.Confidence,
		Model: d.Model, At: d.At.UTC()}
}

// TriageAlert implements store.AlertTriager: a transaction reads the alert's triage and
// writes the new one only when it is prev's, so two runs racing on one alert (Firestore
// retries the transaction of the one that lost the document) end with one triage.
func (s *Store) TriageAlert(ctx context.Context, id record.AlertID, t *record.AlertTriage, prev record.HistoryID) error {
	if t == nil || t.HistoryID == "" || t.Verdict == "" {
		return goerr.Wrap(store.ErrInvalid, "a triage needs its history and verdict", goerr.V("alert_id", id))
	}
	nf := goerr.Wrap(store.ErrNotFound, "alert "+string(id)+" not found", goerr.V("alert_id", id))
	if !validAlertID(id) {
		return nf
	}
	ref := s.alerts().Doc(alertDocID(s.workspace, id))
	doc := &alertTriageDoc{HistoryID: string(t.HistoryID), Verdict: string(t.Verdict), Confidence: t.Confidence, Model: t.Model, At: normTime(t.At)}
	var outcome error
	s.calls.Add("firestore.tx")
	err := s.fs.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		outcome = nil
		snap, err := tx.Get(ref)
		if err != nil {
			if isCode(err, codes.NotFound) {
				outcome = nf
				return nil
			}
			return err
		}
		var d struct {
			Workspace string          `firestore:"workspace"`
			Triage    *alertTriageDoc `firestore:"triage"`
		}
		if err := snap.DataTo(&d); err != nil {
			return err
		}
		current := ""
		if d.Triage != nil {
			current = d.Triage.HistoryID
		}
		switch {
		case d.Workspace != s.workspace:
			outcome = nf
			return nil
		case current == doc.HistoryID:
			return nil // this very write, made by an attempt whose answer was lost
		case current != string(prev):
			outcome = goerr.Wrap(store.ErrConflict, "alert "+string(id)+" was triaged by another run", goerr.V("alert_id", id), goerr.V("history_id", current))
			return nil
		}
		return tx.Update(ref, []firestore.Update{{Path: "triage", Value: doc}, {Path: "triage_verdict", Value: doc.Verdict}})
	})
	if err != nil {
		return goerr.Wrap(err, "failed to record triage", goerr.V("alert_id", id))
	}
	return outcome
}

// AlertTriage implements store.AlertTriager: one read of the alert's triage fields.
func (s *Store) AlertTriage(ctx context.Context, id record.AlertID) (*record.AlertTriage, error) {
	nf := goerr.Wrap(store.ErrNotFound, "alert "+string(id)+" not found", goerr.V("alert_id", id))
	if !validAlertID(id) {
		return nil, nf
	}
	s.calls.Add("firestore.get")
	snap, err := s.alerts().Doc(alertDocID(s.workspace, id)).Get(ctx)
	if err != nil {
		if isCode(err, codes.NotFound) {
			return nil, nf
		}
		return nil, goerr.Wrap(err, "failed to read triage", goerr.V("alert_id", id))
	}
	var d struct {
		Workspace string          `firestore:"workspace"`
		ID        string          `firestore:"id"`
		Triage    *alertTriageDoc `firestore:"triage"`
	}
	if err := snap.DataTo(&d); err != nil {
		return nil, goerr.Wrap(err, "failed to decode triage", goerr.V("alert_id", id))
	}
	if d.Workspace != s.workspace || d.ID != string(id) {
		return nil, nf
	}
	return d.Triage.triage(), nil
}
