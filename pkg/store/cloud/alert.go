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
}

// maxAlertData keeps an alert document under Firestore's 1 MiB document limit (a string field
// holds at most 1,048,487 bytes; the other fields and the name need the rest).
const maxAlertData = 1_000_000

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
	a := &record.Alert{ID: record.AlertID(d.ID), Title: d.Title, CreatedAt: d.CreatedAt.UTC(), Severity: d.Severity, Source: d.Source}
	if !d.Time.IsZero() {
		a.Time = d.Time.UTC()
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
	if len(a.Data) > maxAlertData {
		return nil, goerr.Wrap(store.ErrInvalid, "alert too large for Firestore (at most 1,000,000 bytes of JSON)",
			goerr.V("alert_id", a.ID), goerr.V("size", len(a.Data)))
	}
	d := &alertDoc{Workspace: s.workspace, ID: string(a.ID), Title: a.Title, Data: string(a.Data), CreatedAt: normTime(a.CreatedAt),
		Terms: union(nil, index.Terms(index.AlertText(a.Title, a.Data)), maxTerms), Severity: a.Severity, Source: a.Source}
	if !a.Time.IsZero() {
		d.Time = normTime(a.Time)
	}
	return d, nil
}

// MaxAlertSize implements store.AlertSizer: a document holds at most 1 MiB.
func (s *Store) MaxAlertSize() int { return maxAlertData }

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

// ListAlerts returns a page of alerts, newest first (Data is nil): one bounded query on the
// (workspace, created_at desc, __name__ desc) index, reading no data field.
func (s *Store) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	limit := store.ClampLimit(q.Limit)
	query := s.alerts().Where("workspace", "==", s.workspace).
		OrderBy("created_at", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc)
	if q.Cursor != "" {
		t, id, err := store.DecodeCursor(q.Cursor)
		if err != nil {
			return nil, err
		}
		if !validAlertID(record.AlertID(id)) {
			return nil, goerr.Wrap(store.ErrInvalid, "bad cursor", goerr.V("cursor", q.Cursor))
		}
		query = query.StartAfter(t, alertDocID(s.workspace, record.AlertID(id)))
	}
	s.calls.Add("firestore.query")
	snaps, err := query.Select("workspace", "id", "title", "created_at", "severity", "source", "time").Limit(limit + 1).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list alerts", goerr.V("workspace", s.workspace))
	}
	page := &store.AlertPage{Alerts: make([]*record.Alert, 0, min(len(snaps), limit))}
	for i, snap := range snaps {
		if i == limit {
			last := page.Alerts[limit-1]
			page.NextCursor = store.EncodeCursor(last.CreatedAt, string(last.ID))
			break
		}
		var d alertDoc
		if err := snap.DataTo(&d); err != nil {
			return nil, goerr.Wrap(err, "failed to decode alert", goerr.V("doc", snap.Ref.ID))
		}
		page.Alerts = append(page.Alerts, d.alert(false))
	}
	return page, nil
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
