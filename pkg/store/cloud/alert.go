package cloud

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/grpc/codes"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// alertDoc is the Firestore document of an alert.
type alertDoc struct {
	Workspace string    `firestore:"workspace"`
	ID        string    `firestore:"id"`
	Title     string    `firestore:"title"`
	Data      string    `firestore:"data"`
	CreatedAt time.Time `firestore:"created_at"`
	// Terms are the alert's index terms (see SearchAlerts), written with it.
	Terms    []string  `firestore:"terms,omitempty"`
	Severity string    `firestore:"severity"`
	Source   string    `firestore:"source"`
	Time     time.Time `firestore:"time,omitempty"`
	// Status is "" for an open alert (and missing from documents written before it existed,
	// which Firestore's filters cannot match: see ListAlerts).
	Status string `firestore:"status"`
	// TriageVerdict is the verdict of the alert's triage, "" while untriaged: written with
	// every new alert, so that the untriaged ones are an equality filter (see triage.go).
	TriageVerdict string          `firestore:"triage_verdict"`
	Triage        *alertTriageDoc `firestore:"triage,omitempty"`
}

// MaxAlertSize is the size of the largest alert's JSON the cloud store takes: it keeps an
// alert document under Firestore's 1 MiB document limit (a string field holds at most
// 1,048,487 bytes; the other fields and the name need the rest). The local store has no limit
// of its own.
const MaxAlertSize = 1_000_000

// maxAlertID bounds an alert ID so that its document ID stays under Firestore's 1,500 bytes.
const maxAlertID = 1024

// idEscaper makes a record ID part of a document ID (alertDocID, batchJobDocID).
var idEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

// alertDocID is the document ID of an alert: "{workspace}:{alert ID}", so the same alert
// stored in two workspaces is two documents. A workspace name holds no ':', which keeps the
// ID unambiguous; '%' and '/' in the alert ID are percent-escaped, since '/' separates path
// segments in Firestore. The document ID never starts with "__" or is "." or "..", because a
// workspace name starts with a letter or digit.
func alertDocID(workspace string, id record.AlertID) string {
	return workspace + ":" + idEscaper.Replace(string(id))
}

func validAlertID(id record.AlertID) bool { return id != "" && len(id) <= maxAlertID }

func (d *alertDoc) alert(withData bool) *record.Alert {
	a := &record.Alert{ID: record.AlertID(d.ID), Title: d.Title, CreatedAt: d.CreatedAt.UTC(), Severity: d.Severity, Source: d.Source, Status: d.Status}
	if !d.Time.IsZero() {
		a.Time = d.Time.UTC()
	}
	if !withData {
		a.Triage = d.Triage.triage() // listings carry it; GetAlert returns the alert as stored
	}
	if withData && d.Data != "" {
		a.Data = json.RawMessage(d.Data)
	}
	return a
}

// PutAlert creates the alert in this workspace. When the workspace already holds an alert
// with that ID, nothing is written and created is false.
func (s *Store) PutAlert(ctx context.Context, a *record.Alert) (bool, error) {
	doc, err := s.newAlertDoc(a)
	if err != nil {
		return false, err
	}
	s.calls.Add("firestore.create")
	if _, err := s.alerts().Doc(alertDocID(s.workspace, a.ID)).Create(ctx, doc); err != nil {
		if isCode(err, codes.AlreadyExists) {
			return false, nil
		}
		return false, goerr.Wrap(err, "failed to store alert", goerr.V("alert_id", a.ID))
	}
	a.CreatedAt = doc.CreatedAt
	return true, nil
}

func (s *Store) newAlertDoc(a *record.Alert) (*alertDoc, error) {
	if a == nil || !validAlertID(a.ID) {
		return nil, goerr.Wrap(store.ErrInvalid, "invalid alert ID")
	}
	if len(a.Data) > MaxAlertSize {
		return nil, goerr.Wrap(store.ErrInvalid, "alert too large for Firestore (at most 1,000,000 bytes of JSON)",
			goerr.V("alert_id", a.ID), goerr.V("size", len(a.Data)))
	}
	d := &alertDoc{Workspace: s.workspace, ID: string(a.ID), Title: a.Title, Data: string(a.Data), CreatedAt: normTime(a.CreatedAt),
		Terms: union(nil, index.Terms(index.AlertText(a.Title, a.Data)), maxTerms), Severity: a.Severity, Source: a.Source, Status: a.Status}
	if !a.Time.IsZero() {
		d.Time = normTime(a.Time)
	}
	return d, nil
}

// maxPutBytes keeps one transaction of PutAlerts well under Firestore's 10 MiB request.
const maxPutBytes = 4 << 20

// PutAlerts implements store.AlertsPutter: a transaction per run of at most 500 alerts (and
// maxPutBytes) reads which exist and creates the others, so a retry never counts twice.
func (s *Store) PutAlerts(ctx context.Context, as []*record.Alert) (int, error) {
	docs := make([]*alertDoc, 0, len(as))
	for _, a := range as {
		d, err := s.newAlertDoc(a)
		if err != nil {
			return 0, err
		}
		docs = append(docs, d)
	}
	total := 0
	for start := 0; start < len(docs); {
		end, size := start, 0
		for end < len(docs) && end-start < 500 && (end == start || size+len(docs[end].Data) < maxPutBytes) {
			size += len(docs[end].Data)
			end++
		}
		n, err := s.createAlerts(ctx, docs[start:end])
		if err != nil {
			return total, err
		}
		total += n
		start = end
	}
	return total, nil
}

func (s *Store) createAlerts(ctx context.Context, docs []*alertDoc) (int, error) {
	refs := make([]*firestore.DocumentRef, 0, len(docs))
	seen := map[string]bool{}
	var todo []*alertDoc
	for _, d := range docs {
		if seen[d.ID] {
			continue // a transaction writes a document once
		}
		seen[d.ID] = true
		refs = append(refs, s.alerts().Doc(alertDocID(s.workspace, record.AlertID(d.ID))))
		todo = append(todo, d)
	}
	created := 0
	s.calls.Add("firestore.tx")
	err := s.fs.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		created = 0
		snaps, err := tx.GetAll(refs)
		if err != nil {
			return err
		}
		for i, snap := range snaps {
			if snap.Exists() {
				continue
			}
			if err := tx.Create(refs[i], todo[i]); err != nil {
				return err
			}
			created++
		}
		return nil
	})
	if err != nil {
		return 0, goerr.Wrap(err, "failed to store alerts", goerr.V("count", len(docs)))
	}
	return created, nil
}

// GetAlert returns an alert of this workspace with its data.
func (s *Store) GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
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
		return nil, goerr.Wrap(err, "failed to read alert", goerr.V("alert_id", id))
	}
	var d alertDoc
	if err := snap.DataTo(&d); err != nil {
		return nil, goerr.Wrap(err, "failed to decode alert", goerr.V("alert_id", id))
	}
	if d.Workspace != s.workspace || d.ID != string(id) {
		return nil, nf
	}
	return d.alert(true), nil
}

// alertFilter is the query of the alerts q selects by severity and source (not by status),
// unordered.
func (s *Store) alertFilter(q store.AlertQuery) firestore.Query {
	query := s.alerts().Where("workspace", "==", s.workspace)
	switch len(q.Severities) {
	case 0:
	case 1:
		query = query.Where("severity", "==", q.Severities[0])
	default:
		query = query.Where("severity", "in", q.Severities)
	}
	if q.Source != "" {
		query = query.Where("source", "==", q.Source)
	}
	switch {
	case q.Untriaged:
		query = query.Where("triage_verdict", "==", "")
	case q.Triage != "":
		query = query.Where("triage_verdict", "==", string(q.Triage))
	}
	return query
}

// listAlertsQuery is ListAlerts' query: q's severity, source and triage filters on an index of
// (workspace, [severity,] [source,] [triage_verdict,] created_at desc, __name__ desc)
// (firestore.indexes.json).
func (s *Store) listAlertsQuery(q store.AlertQuery) firestore.Query {
	return s.alertFilter(q).OrderBy("created_at", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc)
}

// closedStatuses are the statuses of closed alerts; an open alert has none (an empty status,
// or no status field at all in a document written before statuses were kept).
var closedStatuses = []string{"resolved", "suppressed", "archived", "inactive"}

// CountAlerts implements store.AlertCounter with aggregation queries of equality filters
// only, which Firestore serves by merging single-field indexes: open alerts are all of them
// less the closed ones (an older document has no status field for a filter to match).
func (s *Store) CountAlerts(ctx context.Context, q store.AlertQuery) (int, error) {
	s.calls.Add("firestore.count")
	n, err := count(ctx, s.alertFilter(q))
	if err != nil {
		return 0, goerr.Wrap(err, "failed to count alerts", goerr.V("workspace", s.workspace))
	}
	if !q.Open {
		return n, nil
	}
	s.calls.Add("firestore.count")
	closed, err := count(ctx, s.alertFilter(q).Where("status", "in", closedStatuses))
	if err != nil {
		return 0, goerr.Wrap(err, "failed to count alerts", goerr.V("workspace", s.workspace))
	}
	return max(n-closed, 0), nil
}

// ListAlerts returns a page of alerts, newest first (Data is nil): bounded queries on the
// index of listAlertsQuery, reading no data field. Closed alerts are left out as they are read
// (q.Open): documents written before statuses were kept have no status field, which no
// Firestore filter matches, and closed alerts are few.
func (s *Store) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	limit := store.ClampLimit(q.Limit)
	page := &store.AlertPage{Alerts: make([]*record.Alert, 0, limit)}
	cursor := q.Cursor
	for {
		n := limit + 1 - len(page.Alerts)
		if q.Open {
			n = max(n, 100) // room for closed alerts in between
		}
		batch, more, err := s.listAlerts(ctx, q, cursor, n)
		if err != nil {
			return nil, err
		}
		for _, a := range batch {
			if q.Open && a.Status != "" {
				continue
			}
			if len(page.Alerts) == limit {
				last := page.Alerts[limit-1]
				page.NextCursor = store.EncodeCursor(last.CreatedAt, string(last.ID))
				return page, nil
			}
			page.Alerts = append(page.Alerts, a)
		}
		if !more {
			return page, nil
		}
		last := batch[len(batch)-1]
		cursor = store.EncodeCursor(last.CreatedAt, string(last.ID))
	}
}

// listAlerts reads at most n alerts of q after cursor, and whether there may be more.
func (s *Store) listAlerts(ctx context.Context, q store.AlertQuery, cursor string, n int) ([]*record.Alert, bool, error) {
	query := s.listAlertsQuery(q)
	if cursor != "" {
		t, id, err := store.DecodeCursor(cursor)
		if err != nil {
			return nil, false, err
		}
		if !validAlertID(record.AlertID(id)) {
			return nil, false, goerr.Wrap(store.ErrInvalid, "bad cursor", goerr.V("cursor", cursor))
		}
		query = query.StartAfter(t, alertDocID(s.workspace, record.AlertID(id)))
	}
	s.calls.Add("firestore.query")
	snaps, err := query.Select("workspace", "id", "title", "created_at", "severity", "source", "time", "status", "triage_verdict", "triage").Limit(n).Documents(ctx).GetAll()
	if err != nil {
		return nil, false, goerr.Wrap(err, "failed to list alerts", goerr.V("workspace", s.workspace))
	}
	out := make([]*record.Alert, 0, len(snaps))
	for _, snap := range snaps {
		var d alertDoc
		if err := snap.DataTo(&d); err != nil {
			return nil, false, goerr.Wrap(err, "failed to decode alert", goerr.V("doc", snap.Ref.ID))
		}
		out = append(out, d.alert(false))
	}
	return out, len(snaps) == n, nil
}

// FindAlerts returns the IDs starting with prefix, in ID order: a document ID range within the
// workspace's part of the collection ("{workspace}:{id}"), reading no fields.
func (s *Store) FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error) {
	coll := s.alerts()
	from := alertDocID(s.workspace, record.AlertID(prefix))
	snaps, err := coll.Where(firestore.DocumentID, ">=", coll.Doc(from)).
		Where(firestore.DocumentID, "<", coll.Doc(from+"\uf8ff")).
		OrderBy(firestore.DocumentID, firestore.Asc).Select().Limit(store.ClampLimit(limit)).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to find alerts", goerr.V("prefix", prefix))
	}
	ids := make([]record.AlertID, 0, len(snaps))
	for _, snap := range snaps {
		ids = append(ids, record.AlertID(strings.TrimPrefix(snap.Ref.ID, s.workspace+":")))
	}
	return ids, nil
}
