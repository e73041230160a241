package cloud

import (
	"context"
	"sync"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Investigations that conclude, in a history's document:
//
//   - questions: who asked each question ({content, analyst, at});
//   - analysts: who asked, each once, first asker first, for array-contains (--analyst);
//   - verdict: the verdict, "" while open, always present so that --open is an equality
//     filter (Firestore cannot match a missing field: histories last saved before verdicts
//     existed lack it until history reindex writes it; fsck reports them);
//   - resolution: {verdict, note, resolved_by, resolved_at, suggested}, absent while open, so
//     that ordering by resolution.resolved_at skips open histories;
//   - triage: {verdict, confidence, evidence, model, at}, the proposal of a triaged alert's
//     investigation, absent for any other; triage_agreed: whether the resolution agreed with
//     it, absent while open or without a triage.
type verdictFields struct {
	Questions    []questionDoc  `firestore:"questions,omitempty"`
	Analysts     []string       `firestore:"analysts,omitempty"`
	Verdict      string         `firestore:"verdict"`
	Resolution   *resolutionDoc `firestore:"resolution,omitempty"`
	Triage       *triageDoc     `firestore:"triage,omitempty"`
	TriageAgreed *bool          `firestore:"triage_agreed,omitempty"`
}

type triageDoc struct {
	Verdict    string              `firestore:"verdict"`
	Confidence float64             `firestore:"confidence"`
	Evidence   []triageEvidenceDoc `firestore:"evidence"`
	Model      string              `firestore:"model"`
	At         time.Time           `firestore:"at"`
}

type triageEvidenceDoc struct {
	Value       string `firestore:"value"`
	Claim       string `firestore:"claim"`
	Unsupported bool   `firestore:"unsupported"`
}

func newTriageDoc(t *record.Triage) *triageDoc {
	if t == nil {
		return nil
	}
	d := &triageDoc{Verdict: string(t.Verdict), Confidence: t.Confidence, Model: t.Model, At: normTime(t.At), Evidence: []triageEvidenceDoc{}}
	for _, e := range t.Evidence {
		d.Evidence = append(d.Evidence, triageEvidenceDoc{Value: e.Value, Claim: e.Claim, Unsupported: e.Unsupported})
	}
	return d
}

func (d *triageDoc) triage() *record.Triage {
	if d == nil {
		return nil
	}
	t := &record.Triage{Verdict: record.Verdict(d.Verdict), Confidence: d.Confidence, Model: d.Model, At: d.At.UTC(), Evidence: []record.TriageEvidence{}}
	for _, e := range d.Evidence {
		t.Evidence = append(t.Evidence, record.TriageEvidence{Value: e.Value, Claim: e.Claim, Unsupported: e.Unsupported})
	}
	return t
}

type questionDoc struct {
	Content int64     `firestore:"content"`
	Analyst string    `firestore:"analyst"`
	At      time.Time `firestore:"at"`
}

type resolutionDoc struct {
	Verdict    string    `firestore:"verdict"`
	Note       string    `firestore:"note"`
	ResolvedBy string    `firestore:"resolved_by"`
	ResolvedAt time.Time `firestore:"resolved_at"`
	Suggested  bool      `firestore:"suggested"`
}

func newVerdictFields(h *record.History) verdictFields {
	f := verdictFields{Analysts: h.Analysts(), Verdict: string(h.Verdict()), Triage: newTriageDoc(h.Triage), TriageAgreed: h.TriageAgreed}
	for _, q := range h.Questions {
		f.Questions = append(f.Questions, questionDoc{Content: int64(q.Content), Analyst: q.Analyst, At: normTime(q.At)})
	}
	if r := h.Resolution; r != nil {
		f.Resolution = &resolutionDoc{Verdict: string(r.Verdict), Note: r.Note, ResolvedBy: r.ResolvedBy,
			ResolvedAt: normTime(r.ResolvedAt), Suggested: r.Suggested}
	}
	return f
}

// fill sets h's questions and resolution from the document.
func (f verdictFields) fill(h *record.History) {
	for _, q := range f.Questions {
		h.Questions = append(h.Questions, record.Question{Content: int(q.Content), Analyst: q.Analyst, At: q.At.UTC()})
	}
	if r := f.Resolution; r != nil {
		h.Resolution = &record.Resolution{Verdict: record.Verdict(r.Verdict), Note: r.Note, ResolvedBy: r.ResolvedBy,
			ResolvedAt: r.ResolvedAt.UTC(), Suggested: r.Suggested}
	}
	h.Triage = f.Triage.triage()
	if f.TriageAgreed != nil {
		agreed := *f.TriageAgreed
		h.TriageAgreed = &agreed
	}
}

// updates are the fields as a save writes them: the resolution removed while open.
func (f verdictFields) updates() []firestore.Update {
	u := []firestore.Update{
		{Path: "questions", Value: f.Questions},
		{Path: "analysts", Value: f.Analysts},
		{Path: "verdict", Value: f.Verdict},
	}
	if f.Triage != nil {
		u = append(u, firestore.Update{Path: "triage", Value: f.Triage})
	} else {
		u = append(u, firestore.Update{Path: "triage", Value: firestore.Delete})
	}
	if f.TriageAgreed != nil {
		u = append(u, firestore.Update{Path: "triage_agreed", Value: *f.TriageAgreed})
	} else {
		u = append(u, firestore.Update{Path: "triage_agreed", Value: firestore.Delete})
	}
	if f.Resolution != nil {
		return append(u, firestore.Update{Path: "resolution", Value: f.Resolution})
	}
	return append(u, firestore.Update{Path: "resolution", Value: firestore.Delete})
}

// queryHistories is the query of q's filters in this store's workspace, its cursor, order and
// limit aside: one definition for listing and counting.
func (s *Store) queryHistories(q store.HistoryQuery) firestore.Query {
	query := s.histories().Where("workspace", "==", s.workspace)
	if q.AlertID != "" {
		query = query.Where("alert_id", "==", string(q.AlertID))
	}
	switch {
	case q.Verdict != "":
		query = query.Where("verdict", "==", string(q.Verdict))
	case q.Open:
		query = query.Where("verdict", "==", "")
	}
	if q.Analyst != "" {
		query = query.Where("analysts", "array-contains", q.Analyst)
	}
	if !q.UpdatedBefore.IsZero() {
		query = query.Where("updated_at", "<", q.UpdatedBefore.UTC())
	}
	return query
}

// listQuery is queryHistories in a listing's order: newest update first, ties broken by ID.
func (s *Store) listQuery(q store.HistoryQuery) firestore.Query {
	return s.queryHistories(q).OrderBy("updated_at", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc)
}

// byAlert selects the histories of one alert of this workspace.
func (s *Store) byAlert(id record.AlertID) firestore.Query {
	return s.histories().Where("workspace", "==", s.workspace).Where("alert_id", "==", string(id))
}

// latestResolved is the query of an alert's history resolved last (an open one has no
// resolution.resolved_at, which keeps it out of the order), reading its verdict only.
func (s *Store) latestResolved(id record.AlertID) firestore.Query {
	return s.byAlert(id).OrderBy("resolution.resolved_at", firestore.Desc).Select("verdict").Limit(1)
}

var _ store.InvestigationCounter = (*Store)(nil)

// alertStatsParallel bounds the alerts summed up at once.
const alertStatsParallel = 8

// AlertInvestigations implements store.InvestigationCounter. For each alert, at once: a count
// (an aggregation query, counted from the index, reading no document) and the latest resolved
// history (one query on (workspace, alert_id, resolution.resolved_at desc) reading one
// document's verdict); alerts are summed up alertStatsParallel at a time.
func (s *Store) AlertInvestigations(ctx context.Context, ids []record.AlertID) (map[record.AlertID]store.AlertInvestigations, error) {
	out := map[record.AlertID]store.AlertInvestigations{}
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, alertStatsParallel)
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			inv, err := s.alertInvestigations(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && firstErr == nil:
				firstErr = err
			case err == nil && inv.Count > 0:
				out[id] = inv
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func (s *Store) alertInvestigations(ctx context.Context, id record.AlertID) (store.AlertInvestigations, error) {
	var inv store.AlertInvestigations
	var verdict string
	var verr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.calls.Add("firestore.query")
		snaps, err := s.latestResolved(id).Documents(ctx).GetAll()
		if err != nil {
			verr = err
			return
		}
		if len(snaps) == 1 {
			if v, err := snaps[0].DataAt("verdict"); err == nil {
				verdict, _ = v.(string)
			}
		}
	}()
	s.calls.Add("firestore.query")
	n, err := count(ctx, s.byAlert(id))
	<-done
	if err == nil {
		err = verr
	}
	if err != nil {
		return inv, goerr.Wrap(err, "failed to sum up the alert's histories", goerr.V("alert_id", id))
	}
	inv.Count = n
	inv.Verdict = record.Verdict(verdict)
	return inv, nil
}
