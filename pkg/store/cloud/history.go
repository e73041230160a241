package cloud

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/storage"
	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/grpc/codes"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// historyDoc is the Firestore document of a history's metadata.
// listFields are the fields a listing reads: the metadata, not the search fields (up to two
// arrays of terms and a vector), which would make every page many times larger.
var listFields = []string{"id", "workspace", "alert_id", "title", "title_source", "parent_id", "fork_point",
	"created_at", "updated_at", "message_count", "usage", "redactions", "tool_calls", "tool_approvals", "redacted_count",
	"revision", "object_generation", "summary", "knowledge_ids", "questions", "verdict", "resolution", "triage", "triage_agreed"}

type historyDoc struct {
	ID               string         `firestore:"id"`
	Workspace        string         `firestore:"workspace"`
	AlertID          string         `firestore:"alert_id"`
	Title            string         `firestore:"title"`
	TitleSource      string         `firestore:"title_source"`
	ParentID         string         `firestore:"parent_id"`
	ForkPoint        int64          `firestore:"fork_point"`
	CreatedAt        time.Time      `firestore:"created_at"`
	UpdatedAt        time.Time      `firestore:"updated_at"`
	MessageCount     int64          `firestore:"message_count"`
	Usage            usageDoc       `firestore:"usage"`
	Redactions       map[string]int `firestore:"redactions"`
	ToolCalls        int64          `firestore:"tool_calls"`
	ToolApprovals    []approvalDoc  `firestore:"tool_approvals"`
	RedactedCount    int64          `firestore:"redacted_count"`
	Revision         int64          `firestore:"revision"`
	ObjectGeneration int64          `firestore:"object_generation"`
	Summary          *summaryDoc    `firestore:"summary,omitempty"`
	KnowledgeIDs     []string       `firestore:"knowledge_ids,omitempty"`
	verdictFields
	searchFields
}

// approvalDoc is a record.ToolApproval in a history's document.
type approvalDoc struct {
	Tool     string    `firestore:"tool"`
	Server   string    `firestore:"server"`
	Decision string    `firestore:"decision"`
	Asked    bool      `firestore:"asked"`
	At       time.Time `firestore:"at"`
	Content  int64     `firestore:"content"`
	Call     int64     `firestore:"call"`
	CallID   string    `firestore:"call_id"`
	// Elicitations are record.Elicitation, as they are (JSON-shaped).
	Elicitations []record.Elicitation `firestore:"elicitations,omitempty"`
	Egress       *record.EgressHold   `firestore:"egress,omitempty"`
}

func newApprovalDocs(as []record.ToolApproval) []approvalDoc {
	if len(as) == 0 {
		return nil
	}
	out := make([]approvalDoc, len(as))
	for i, a := range as {
		out[i] = approvalDoc{Tool: a.Tool, Server: a.Server, Decision: a.Decision, Asked: a.Asked,
			At: normTime(a.At), Content: int64(a.Content), Call: int64(a.Call), CallID: a.CallID, Elicitations: a.Elicitations, Egress: a.Egress}
	}
	return out
}

func approvals(ds []approvalDoc) []record.ToolApproval {
	if len(ds) == 0 {
		return nil
	}
	out := make([]record.ToolApproval, len(ds))
	for i, d := range ds {
		out[i] = record.ToolApproval{Tool: d.Tool, Server: d.Server, Decision: d.Decision, Asked: d.Asked,
			At: d.At.UTC(), Content: int(d.Content), Call: int(d.Call), CallID: d.CallID, Elicitations: d.Elicitations, Egress: d.Egress}
	}
	return out
}

// summaryDoc is record.Summary in a history's document.
type summaryDoc struct {
	Text        string    `firestore:"text"`
	CoversCount int64     `firestore:"covers_count"`
	CreatedAt   time.Time `firestore:"created_at"`
}

type usageDoc struct {
	InputTokens   int64 `firestore:"input_tokens"`
	OutputTokens  int64 `firestore:"output_tokens"`
	ThoughtTokens int64 `firestore:"thought_tokens"`
}

// Object metadata keys of a transcript object. writeIDKey tells a retried write that found
// its own earlier attempt apart from a concurrent writer's.
const (
	historyIDKey = "history_id"
	workspaceKey = "workspace"
	writeIDKey   = "write_id"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newHistoryDoc(h *record.History, workspace string, revision, generation int64) *historyDoc {
	return &historyDoc{
		ID:               string(h.ID),
		Workspace:        workspace,
		AlertID:          string(h.AlertID),
		Title:            h.Title,
		TitleSource:      h.TitleSource,
		ParentID:         string(h.ParentID),
		ForkPoint:        int64(h.ForkPoint),
		CreatedAt:        h.CreatedAt,
		UpdatedAt:        h.UpdatedAt,
		MessageCount:     int64(h.MessageCount),
		Usage:            usageDoc{InputTokens: h.Usage.InputTokens, OutputTokens: h.Usage.OutputTokens, ThoughtTokens: h.Usage.ThoughtTokens},
		Redactions:       h.Redactions,
		ToolCalls:        int64(h.ToolCalls),
		ToolApprovals:    newApprovalDocs(h.ToolApprovals),
		RedactedCount:    int64(h.RedactedCount),
		Revision:         revision,
		ObjectGeneration: generation,
		Summary:          newSummaryDoc(h.Summary),
		KnowledgeIDs:     knowledgeIDStrings(h.KnowledgeIDs),
		verdictFields:    newVerdictFields(h),
	}
}

func knowledgeIDStrings(ids []record.KnowledgeID) []string {
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

func newSummaryDoc(s *record.Summary) *summaryDoc {
	if s == nil {
		return nil
	}
	return &summaryDoc{Text: s.Text, CoversCount: int64(s.CoversCount), CreatedAt: s.CreatedAt}
}

func (d *historyDoc) history() *record.History {
	h := &record.History{
		ID:            record.HistoryID(d.ID),
		Workspace:     d.Workspace,
		AlertID:       record.AlertID(d.AlertID),
		Title:         d.Title,
		TitleSource:   d.TitleSource,
		ParentID:      record.HistoryID(d.ParentID),
		ForkPoint:     int(d.ForkPoint),
		CreatedAt:     d.CreatedAt.UTC(),
		UpdatedAt:     d.UpdatedAt.UTC(),
		MessageCount:  int(d.MessageCount),
		Usage:         record.Usage{InputTokens: d.Usage.InputTokens, OutputTokens: d.Usage.OutputTokens, ThoughtTokens: d.Usage.ThoughtTokens},
		ToolCalls:     int(d.ToolCalls),
		ToolApprovals: approvals(d.ToolApprovals),
		RedactedCount: int(d.RedactedCount),
		Revision:      d.Revision,
	}
	if len(d.Redactions) > 0 {
		h.Redactions = d.Redactions
	}
	if d.Summary != nil {
		h.Summary = &record.Summary{Text: d.Summary.Text, CoversCount: int(d.Summary.CoversCount), CreatedAt: d.Summary.CreatedAt.UTC()}
	}
	for _, id := range d.KnowledgeIDs {
		h.KnowledgeIDs = append(h.KnowledgeIDs, record.KnowledgeID(id))
	}
	d.verdictFields.fill(h)
	return h
}

// updates is the document as a full update: every field, the summary and the pending-write
// mark removed when absent.
// updates are the fields a save writes: the metadata and the search terms. The embedding is
// written by its own layer (PutEmbedding) and left alone here.
func (d *historyDoc) updates() []firestore.Update {
	u := []firestore.Update{
		{Path: "terms", Value: d.Terms},
		{Path: "body_terms", Value: d.BodyTerms},
		{Path: "indexed_count", Value: d.IndexedCount},
		{Path: "search_v", Value: d.SearchVersion},
		{Path: "id", Value: d.ID},
		{Path: "workspace", Value: d.Workspace},
		{Path: "alert_id", Value: d.AlertID},
		{Path: "title", Value: d.Title},
		{Path: "title_source", Value: d.TitleSource},
		{Path: "parent_id", Value: d.ParentID},
		{Path: "fork_point", Value: d.ForkPoint},
		{Path: "created_at", Value: d.CreatedAt},
		{Path: "updated_at", Value: d.UpdatedAt},
		{Path: "message_count", Value: d.MessageCount},
		{Path: "usage", Value: d.Usage},
		{Path: "redactions", Value: d.Redactions},
		{Path: "tool_calls", Value: d.ToolCalls},
		{Path: "tool_approvals", Value: d.ToolApprovals},
		{Path: "redacted_count", Value: d.RedactedCount},
		{Path: "revision", Value: d.Revision},
		{Path: "object_generation", Value: d.ObjectGeneration},
		{Path: "knowledge_ids", Value: d.KnowledgeIDs},
		{Path: pendingField, Value: firestore.Delete},
	}
	u = append(u, d.verdictFields.updates()...)
	if d.Summary != nil {
		return append(u, firestore.Update{Path: "summary", Value: d.Summary})
	}
	return append(u, firestore.Update{Path: "summary", Value: firestore.Delete})
}

func decodeHistory(snap *firestore.DocumentSnapshot) (*historyDoc, error) {
	var d historyDoc
	if err := snap.DataTo(&d); err != nil {
		return nil, goerr.Wrap(err, "failed to decode history metadata", goerr.V("history_id", snap.Ref.ID))
	}
	if d.ID == "" {
		d.ID = snap.Ref.ID
	}
	return &d, nil
}

func notFound(id record.HistoryID) error {
	return goerr.Wrap(store.ErrNotFound, "history "+string(id)+" not found", goerr.V("history_id", id))
}

func conflict(id record.HistoryID, cause string) error {
	return goerr.Wrap(store.ErrConflict, "failed to save history "+string(id), goerr.V("history_id", id), goerr.V("cause", cause))
}

// getDoc reads the metadata of id in this workspace and remembers its state. A document of
// another workspace is ErrNotFound, exactly like a missing one.
func (s *Store) getDoc(ctx context.Context, id record.HistoryID) (*historyDoc, docState, error) {
	if !store.ValidHistoryID(id) {
		return nil, docState{}, notFound(id)
	}
	s.calls.Add("firestore.get")
	snap, err := s.histories().Doc(string(id)).Get(ctx)
	if err != nil {
		if isCode(err, codes.NotFound) {
			s.states.drop(id)
			return nil, docState{}, notFound(id)
		}
		return nil, docState{}, goerr.Wrap(err, "failed to read history metadata", goerr.V("history_id", id))
	}
	d, err := decodeHistory(snap)
	if err != nil {
		return nil, docState{}, err
	}
	if d.Workspace != s.workspace {
		return nil, docState{}, notFound(id)
	}
	idx := d.searchFields
	st := docState{revision: d.Revision, generation: d.ObjectGeneration, updateTime: snap.UpdateTime, index: &idx}
	s.states.put(id, st)
	return d, st, nil
}

// GetHistoryMeta returns the metadata of a history (Contents nil, ContentVersion 0).
func (s *Store) GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error) {
	d, _, err := s.getDoc(ctx, id)
	if err != nil {
		return nil, err
	}
	return d.history(), nil
}

// GetHistory returns the metadata and the transcript, read at once (one round trip, not
// two). ContentVersion is the generation of the object read, which may be newer than the
// metadata when a writer's metadata update is pending or failed after its transcript write.
// The transcript of a history of another workspace is read too, and dropped.
func (s *Store) GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error) {
	if !store.ValidHistoryID(id) {
		return nil, notFound(id)
	}
	type object struct {
		data []byte
		gen  int64
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	objc := make(chan object, 1)
	go func() {
		data, gen, err := s.readObject(ctx, id)
		objc <- object{data, gen, err}
	}()
	d, _, err := s.getDoc(ctx, id)
	if err != nil {
		cancel()
		<-objc
		return nil, err
	}
	o := <-objc
	if o.err != nil {
		return nil, o.err
	}
	contents, err := store.DecodeTranscript(id, o.data)
	if err != nil {
		return nil, err
	}
	h := d.history()
	h.Contents = contents
	h.ContentVersion = o.gen
	return h, nil
}

func (s *Store) readObject(ctx context.Context, id record.HistoryID) ([]byte, int64, error) {
	key := store.ObjectKey(s.prefix, id)
	s.calls.Add("gcs.read")
	r, err := s.bucket.Object(key).NewReader(ctx)
	if err != nil {
		if errors.Is(err, storage.ErrObjectNotExist) {
			// Not ErrNotFound: the metadata exists, its content is gone (an outside hand).
			return nil, 0, goerr.New("transcript of history "+string(id)+" is missing from the bucket",
				goerr.V("history_id", id), goerr.V("object", key))
		}
		return nil, 0, goerr.Wrap(err, "failed to read transcript of history "+string(id),
			goerr.V("history_id", id), goerr.V("object", key))
	}
	defer func() { _ = r.Close() }()
	var buf bytes.Buffer
	if n := r.Attrs.Size; n > 0 && n < 1<<31 {
		buf.Grow(int(n) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, 0, goerr.Wrap(err, "failed to read transcript of history "+string(id),
			goerr.V("history_id", id), goerr.V("object", key))
	}
	return buf.Bytes(), r.Attrs.Generation, nil
}

// writeObject writes the transcript under cond and returns the new generation. A failed
// condition is ErrConflict, unless the object found is this very write (a retried request
// whose first attempt succeeded).
func (s *Store) writeObject(ctx context.Context, id record.HistoryID, data []byte, cond storage.Conditions) (int64, error) {
	key := store.ObjectKey(s.prefix, id)
	obj := s.bucket.Object(key)
	writeID := uuid.NewString()
	w := obj.If(cond).NewWriter(ctx)
	w.ContentType = "application/json"
	w.Metadata = map[string]string{historyIDKey: string(id), workspaceKey: s.workspace, writeIDKey: writeID}
	w.CRC32C = crc32.Checksum(data, castagnoli)
	w.SendCRC32C = true
	w.ChunkSize = chunkSize(len(data))
	s.calls.AddN("gcs.write", uploadRequests(len(data)))
	_, werr := w.Write(data)
	cerr := w.Close()
	err := errors.Join(werr, cerr)
	if err == nil {
		return w.Attrs().Generation, nil
	}
	if isPreconditionFailed(err) {
		s.calls.Add("gcs.attrs")
		if attrs, aerr := obj.Attrs(ctx); aerr == nil && attrs.Metadata[writeIDKey] == writeID {
			return attrs.Generation, nil
		}
		return 0, conflict(id, "transcript object changed by another writer")
	}
	return 0, goerr.Wrap(err, "failed to write transcript of history "+string(id),
		goerr.V("history_id", id), goerr.V("object", key), goerr.V("size", len(data)))
}

const maxChunk = 16 << 20

// chunkSize makes a transcript of up to 16 MiB go up in one request with a buffer of its own
// size (the writer's default buffer is 16 MiB on every write); larger ones upload in 16 MiB
// chunks. The buffer is what lets the writer retry.
func chunkSize(n int) int {
	const unit = 256 << 10
	if n >= maxChunk {
		return maxChunk
	}
	return (n/unit + 1) * unit // strictly larger than n: the upload ends inside the first chunk
}

// uploadRequests is how many requests a write of n bytes makes: one, or a resumable upload's
// start and its chunks.
func uploadRequests(n int) int {
	if n < maxChunk {
		return 1
	}
	return 1 + (n+maxChunk-1)/maxChunk
}

// SaveHistory writes the transcript object, then the metadata document: two requests, one
// after the other.
//
// Create (Revision 0): the object is written only if it does not exist, then the document is
// created only if it does not exist. Update: the object is written only if its generation is
// still h.ContentVersion, then the document only if its update time is still the one the store
// saw at h.Revision (a precondition, not a transaction). That update time is remembered from
// the load or the previous save of h; a save the store has no such memory of reads the
// document first (one more request).
//
// Once the object is written, h.ContentVersion holds its generation even if the metadata
// write then fails, so the same caller can retry the same save.
func (s *Store) SaveHistory(ctx context.Context, h *record.History) error {
	if h == nil {
		return goerr.Wrap(store.ErrInvalid, "history is nil")
	}
	if h.Revision < 0 {
		return goerr.Wrap(store.ErrInvalid, "negative revision", goerr.V("history_id", h.ID))
	}
	if !store.ValidHistoryID(h.ID) {
		if h.Revision > 0 {
			return notFound(h.ID)
		}
		return goerr.Wrap(store.ErrInvalid, "invalid history ID", goerr.V("history_id", h.ID))
	}
	h.CreatedAt = normTime(h.CreatedAt)
	h.UpdatedAt = normTime(h.UpdatedAt)
	data, err := store.EncodeTranscript(h.Contents)
	if err != nil {
		return goerr.Wrap(err, "failed to save history "+string(h.ID), goerr.V("history_id", h.ID))
	}
	if h.Revision == 0 {
		return s.create(ctx, h, data)
	}
	return s.update(ctx, h, data)
}

func normTime(t time.Time) time.Time {
	if t.IsZero() {
		return store.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

func (s *Store) create(ctx context.Context, h *record.History, data []byte) error {
	gen, err := s.writeObject(ctx, h.ID, data, storage.Conditions{DoesNotExist: true})
	if err != nil && h.ContentVersion != 0 && errors.Is(err, store.ErrConflict) {
		// A retry of a create whose answer was lost: done if the document was created too.
		if d, _, gerr := s.getDoc(ctx, h.ID); gerr == nil && d.Revision == 1 && d.ObjectGeneration == h.ContentVersion {
			h.Revision, h.Workspace = 1, s.workspace
			return nil
		}
		// Else its metadata write failed: the object there is the one this caller wrote.
		// (Trying DoesNotExist first keeps a ContentVersion copied from another history, e.g.
		// into a new child history, from failing the create.)
		gen, err = s.writeObject(ctx, h.ID, data, storage.Conditions{GenerationMatch: h.ContentVersion})
	}
	if errors.Is(err, store.ErrConflict) {
		gen, err = s.adopt(ctx, h, data, err)
	}
	if err != nil {
		return err
	}
	h.ContentVersion = gen
	if s.afterObjectWrite != nil {
		s.afterObjectWrite(h.ID)
	}
	ref := s.histories().Doc(string(h.ID))
	doc := newHistoryDoc(h, s.workspace, 1, gen)
	indexDoc(doc, nil, h)
	s.calls.Add("firestore.create")
	wr, err := ref.Create(ctx, doc)
	if err != nil {
		if !isCode(err, codes.AlreadyExists) {
			return goerr.Wrap(err, "failed to write metadata of history "+string(h.ID), goerr.V("history_id", h.ID))
		}
		// Ours if it points at the generation just written (a retried commit).
		d, _, gerr := s.getDoc(ctx, h.ID)
		if gerr != nil || d.ObjectGeneration != gen || d.Revision != 1 {
			return conflict(h.ID, "history already exists")
		}
	} else {
		s.states.put(h.ID, docState{revision: 1, generation: gen, updateTime: wr.UpdateTime, index: &doc.searchFields})
	}
	h.Revision = 1
	h.Workspace = s.workspace
	return nil
}

// adopt takes over the transcript object that a create of h.ID left without metadata, when a
// process died between the two writes (a remote batch's collector saves its new histories
// under IDs derived from the job, so its rerun creates the same ID again): an object of this
// workspace and ID, with no document, holding an earlier state of what is being saved (its
// contents are a prefix of h's, or equal to them). It is overwritten conditional on the
// generation read, and the create goes on. Anything else is left alone and the create stays
// the conflict it was (err), which a caller resolves by forking.
func (s *Store) adopt(ctx context.Context, h *record.History, data []byte, err error) (int64, error) {
	if _, _, gerr := s.getDoc(ctx, h.ID); !errors.Is(gerr, store.ErrNotFound) {
		return 0, err
	}
	obj := s.bucket.Object(store.ObjectKey(s.prefix, h.ID))
	s.calls.Add("gcs.attrs")
	attrs, aerr := obj.Attrs(ctx)
	if aerr != nil || attrs.Metadata[workspaceKey] != s.workspace || attrs.Metadata[historyIDKey] != string(h.ID) {
		return 0, err
	}
	s.calls.Add("gcs.read")
	r, rerr := obj.Generation(attrs.Generation).NewReader(ctx)
	if rerr != nil {
		return 0, err
	}
	old, rerr := io.ReadAll(r)
	_ = r.Close()
	if rerr != nil {
		return 0, err
	}
	contents, derr := store.DecodeTranscript(h.ID, old)
	if derr != nil || !store.IsPrefix(contents, h.Contents) {
		return 0, err
	}
	return s.writeObject(ctx, h.ID, data, storage.Conditions{GenerationMatch: attrs.Generation})
}

// pendingField is set on a history's document by a save that replaces a transcript object
// its metadata does not describe yet (see claim), and removed by the save's metadata write.
const pendingField = "pending_write"

func (s *Store) update(ctx context.Context, h *record.History, data []byte) error {
	st, ok := s.states.get(h.ID)
	if !ok || st.revision != h.Revision {
		var err error
		if _, st, err = s.getDoc(ctx, h.ID); err != nil {
			return err
		}
		if st.revision != h.Revision {
			return conflict(h.ID, "stale revision")
		}
	}
	gen := h.ContentVersion
	if gen == 0 {
		gen = st.generation
	}
	precondition := st.updateTime
	if gen != st.generation {
		// The object is ahead of the metadata: written by a save whose metadata write is
		// pending or failed (this caller's earlier attempt, or another writer's). Its metadata
		// must not land once this save replaces the object (it would describe content it does
		// not hold), so the document is changed first, which fails that write's precondition.
		t, err := s.claim(ctx, h.ID, precondition)
		if err != nil {
			return err
		}
		precondition = t
	}
	cond := storage.Conditions{GenerationMatch: gen}
	if gen == 0 {
		cond = storage.Conditions{DoesNotExist: true}
	}
	newGen, err := s.writeObject(ctx, h.ID, data, cond)
	if err != nil {
		s.states.drop(h.ID)
		return err
	}
	h.ContentVersion = newGen
	if s.afterObjectWrite != nil {
		s.afterObjectWrite(h.ID)
	}
	next := newHistoryDoc(h, s.workspace, h.Revision+1, newGen)
	indexDoc(next, st.indexed(), h)
	s.calls.Add("firestore.update")
	wr, err := s.histories().Doc(string(h.ID)).Update(ctx, next.updates(), firestore.LastUpdateTime(precondition))
	if err != nil {
		s.states.drop(h.ID)
		return s.metadataWriteError(h.ID, err)
	}
	s.states.put(h.ID, docState{revision: h.Revision + 1, generation: newGen, updateTime: wr.UpdateTime, index: &next.searchFields})
	h.Revision++
	h.Workspace = s.workspace
	return nil
}

// claim changes the document of id, conditional on its update time, and returns the new one.
func (s *Store) claim(ctx context.Context, id record.HistoryID, updateTime time.Time) (time.Time, error) {
	s.calls.Add("firestore.update")
	wr, err := s.histories().Doc(string(id)).Update(ctx,
		[]firestore.Update{{Path: pendingField, Value: uuid.NewString()}}, firestore.LastUpdateTime(updateTime))
	if err != nil {
		s.states.drop(id)
		return time.Time{}, s.metadataWriteError(id, err)
	}
	return wr.UpdateTime, nil
}

// metadataWriteError classifies a failed conditional document write: a document changed
// since it was read is a conflict, a deleted one is not found.
func (s *Store) metadataWriteError(id record.HistoryID, err error) error {
	switch {
	case isCode(err, codes.FailedPrecondition):
		return conflict(id, "metadata changed by another writer")
	case isCode(err, codes.NotFound):
		return notFound(id) // deleted meanwhile; the object is an orphan
	}
	return goerr.Wrap(err, "failed to write metadata of history "+string(id), goerr.V("history_id", id))
}

// DeleteHistory removes the metadata, then the transcript object: metadata never points at a
// missing object, and an object left behind by a failure is an orphan that a repair can find.
func (s *Store) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	if _, _, err := s.getDoc(ctx, id); err != nil {
		return err
	}
	s.states.drop(id)
	ref := s.histories().Doc(string(id))
	s.calls.Add("firestore.delete")
	if _, err := ref.Delete(ctx, firestore.Exists); err != nil {
		if isCode(err, codes.NotFound) {
			return notFound(id)
		}
		return goerr.Wrap(err, "failed to delete metadata of history "+string(id), goerr.V("history_id", id))
	}
	key := store.ObjectKey(s.prefix, id)
	s.calls.Add("gcs.delete")
	if err := s.bucket.Object(key).Delete(ctx); err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
		return goerr.Wrap(err, "history "+string(id)+" deleted, but not its transcript object",
			goerr.V("history_id", id), goerr.V("object", key))
	}
	return nil
}

// ListHistories returns a page of metadata, newest update first, ties broken by ID. One
// bounded query on the (workspace[, alert_id][, verdict][, analysts], updated_at desc,
// __name__ desc) index.
func (s *Store) ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error) {
	limit := store.ClampLimit(q.Limit)
	query := s.listQuery(q)
	if q.Cursor != "" {
		t, id, err := store.DecodeCursor(q.Cursor)
		if err != nil {
			return nil, err
		}
		if !store.ValidHistoryID(record.HistoryID(id)) {
			return nil, goerr.Wrap(store.ErrInvalid, "bad cursor", goerr.V("cursor", q.Cursor))
		}
		query = query.StartAfter(t, id)
	}
	s.calls.Add("firestore.query")
	snaps, err := query.Select(listFields...).Limit(limit + 1).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list histories", goerr.V("workspace", s.workspace))
	}
	page := &store.HistoryPage{Histories: make([]*record.History, 0, min(len(snaps), limit))}
	for i, snap := range snaps {
		if i == limit {
			last := page.Histories[limit-1]
			page.NextCursor = store.EncodeCursor(last.UpdatedAt, string(last.ID))
			break
		}
		d, err := decodeHistory(snap)
		if err != nil {
			return nil, err
		}
		page.Histories = append(page.Histories, d.history())
	}
	return page, nil
}

// FindHistories returns the IDs starting with prefix, in ID order: a document ID range on
// the workspace's single-field index, reading no fields.
func (s *Store) FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error) {
	limit = store.ClampLimit(limit)
	if !validIDPrefix(prefix) {
		return nil, nil // no history ID can start with it
	}
	coll := s.histories()
	query := coll.Where("workspace", "==", s.workspace)
	if prefix != "" {
		query = query.Where(firestore.DocumentID, ">=", coll.Doc(prefix)).
			Where(firestore.DocumentID, "<", coll.Doc(prefix+"\uf8ff"))
	}
	s.calls.Add("firestore.query")
	snaps, err := query.OrderBy(firestore.DocumentID, firestore.Asc).Select().Limit(limit).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to find histories", goerr.V("prefix", prefix))
	}
	ids := make([]record.HistoryID, 0, len(snaps))
	for _, snap := range snaps {
		ids = append(ids, record.HistoryID(snap.Ref.ID))
	}
	return ids, nil
}

// validIDPrefix reports whether prefix can begin a history ID (a UUID).
func validIDPrefix(prefix string) bool {
	if len(prefix) > 36 {
		return false
	}
	for _, c := range prefix {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			return false
		}
	}
	return true
}
