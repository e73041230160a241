// Package fsck finds what an outside hand or an interrupted process left in a store and, with
// Options.Repair, puts it right without deleting anything that may hold a turn:
//
//   - a leftover temporary file (local store: an interrupted save): removed;
//   - content without metadata (an orphan transcript: a save interrupted between its content
//     and its metadata, or a delete between its metadata and its content): moved to
//     {prefix}lost+found/, where it can be read; not adopted, since its alert, title and
//     workspace are not known;
//   - metadata without content (a transcript removed by an outside hand): the metadata is
//     moved to {prefix}lost+found/{id}.{time}.meta.json with the reason, and removed, so the
//     history no longer lists as resumable;
//   - unreadable content or metadata (a corrupt object or record): the object is moved to
//     {prefix}lost+found/ and the metadata handled as above (the copy names the reason);
//   - a team knowledge entry that cannot be given as written (no text, text past its length,
//     an unknown verdict in its source): reported, never changed (a person edits or retires
//     it); a lesson whose source history is gone (deleted, pruned) is a note: the lesson
//     stands, its trail does not.
//
// Orphans and temporary files younger than Options.Grace may belong to a save in progress: they are
// reported as notes and left alone. A history whose metadata counts fewer messages than its
// transcript holds (content written, metadata not, before a crash) is consistent — every turn
// is there and the next save updates the metadata — and is reported as a note.
package fsck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Options say what to check and whether to repair.
type Options struct {
	// Prefix is the store's object key prefix; Workspace the workspace whose metadata is checked.
	Prefix    string
	Workspace string
	// Repair puts right what is found (moved aside to lost+found, never deleted).
	Repair bool
	// Grace leaves alone orphans and temporary files younger than this: a save may be in
	// progress.
	Grace time.Duration
	// Now defaults to time.Now.
	Now func() time.Time
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Count returns how many findings are problems, and how many of those were not repaired.
func Count(fs []Finding) (problems, unrepaired int) {
	for _, f := range fs {
		if f.Problem {
			problems++
			if !f.Repaired {
				unrepaired++
			}
		}
	}
	return problems, unrepaired
}

// Finding is one thing fsck found.
type Finding struct {
	Kind      string           `json:"kind"`
	Key       string           `json:"key,omitempty"`
	HistoryID record.HistoryID `json:"history_id,omitempty"`
	Detail    string           `json:"detail"`
	// Problem is false for notes (consistent states worth knowing about).
	Problem  bool   `json:"problem"`
	Repaired bool   `json:"repaired,omitempty"`
	MovedTo  string `json:"moved_to,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Kinds of findings.
const (
	KindTemp            = "temp_file"
	KindOrphan          = "orphan_content"
	KindMissingContent  = "missing_content"
	KindCorruptContent  = "corrupt_content"
	KindCorruptMetadata = "corrupt_metadata"
	KindStaleMetadata   = "metadata_behind_content"
	KindInProgress      = "recent_write"
	KindUnknownObject   = "unknown_object"
	KindBadKnowledge    = "invalid_knowledge"
	KindLessonSource    = "lesson_source_missing"
)

// Target is what a check reads and repairs: the store's checker, its histories and its team
// knowledge.
type Target interface {
	store.Checker
	store.Histories
	store.KnowledgeBase
}

// Check runs every check, repairing when asked, metadata first (a repair there may move an
// object aside, which then is not reported again as an orphan).
func Check(ctx context.Context, ck Target, opts Options) ([]Finding, error) {
	prefix, workspace := opts.Prefix, opts.Workspace
	var hs store.Histories = ck
	ids, err := ck.ListHistoryIDs(ctx)
	if err != nil {
		return nil, goerr.Wrap(err, "fsck: failed to list histories")
	}
	var out []Finding
	known := make(map[record.HistoryID]bool, len(ids))
	for _, id := range ids {
		known[id] = true
		if f := checkHistory(ctx, ck, hs, prefix, id, &opts); f != nil {
			out = append(out, *f)
		}
	}
	kf, err := checkKnowledge(ctx, ck, known)
	if err != nil {
		return out, err
	}
	out = append(out, kf...)
	objs, err := ck.ListObjects(ctx)
	if err != nil {
		return out, goerr.Wrap(err, "fsck: failed to list transcript objects")
	}
	now := opts.now()
	for _, o := range objs {
		f := Finding{Key: o.Key, HistoryID: o.ID}
		age := now.Sub(o.Updated)
		switch {
		case o.Temp:
			f.Kind, f.Problem = KindTemp, true
			f.Detail = fmt.Sprintf("leftover temporary file of an interrupted save (%d bytes, %s old)", o.Size, age.Round(time.Second))
		case o.ID == "":
			out = append(out, Finding{Kind: KindUnknownObject, Key: o.Key, Detail: "not a transcript key; left alone"})
			continue
		case known[o.ID] || (o.Workspace != "" && o.Workspace != workspace):
			continue
		default:
			exists, err := ck.MetadataExists(ctx, o.ID)
			if err != nil {
				return out, goerr.Wrap(err, "fsck: failed to look up history", goerr.V("history_id", o.ID))
			}
			if exists {
				continue // another workspace's, or saved since the listing
			}
			f.Kind, f.Problem = KindOrphan, true
			f.Detail = fmt.Sprintf("transcript without metadata (%d bytes, %s old)", o.Size, age.Round(time.Second))
		}
		if age < opts.Grace {
			f.Kind, f.Problem = KindInProgress, false
			f.Detail += fmt.Sprintf("; younger than the grace period %s, maybe a save in progress: left alone", opts.Grace)
			out = append(out, f)
			continue
		}
		if opts.Repair {
			dest, err := ck.MoveAside(ctx, o.Key)
			f.Repaired, f.MovedTo = err == nil, dest
			if err != nil {
				f.Error = err.Error()
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// checkKnowledge reports the workspace's knowledge entries (the newest store.MaxLimit,
// retired ones included) that cannot be given as written, and the lessons whose source history
// is not among known.
func checkKnowledge(ctx context.Context, kb store.KnowledgeBase, known map[record.HistoryID]bool) ([]Finding, error) {
	es, err := kb.ListKnowledge(ctx, store.KnowledgeQuery{All: true, Limit: store.MaxLimit})
	if err != nil {
		return nil, goerr.Wrap(err, "fsck: failed to list knowledge entries")
	}
	var out []Finding
	for _, e := range es {
		key := "knowledge/" + string(e.ID)
		n := utf8.RuneCountInString(strings.TrimSpace(e.Text))
		switch {
		case n == 0:
			out = append(out, Finding{Kind: KindBadKnowledge, Key: key, Problem: true, Detail: "knowledge entry without text: edit it (knowledge edit) or retire it (knowledge rm)"})
		case n > record.MaxKnowledgeText:
			out = append(out, Finding{Kind: KindBadKnowledge, Key: key, Problem: true, Detail: fmt.Sprintf("knowledge entry of %d characters, past %d: edit it or retire it", n, record.MaxKnowledgeText)})
		case e.Source != nil && !slices.Contains(record.Verdicts, e.Source.Verdict):
			out = append(out, Finding{Kind: KindBadKnowledge, Key: key, Problem: true, Detail: "lesson with an unknown verdict in its source"})
		case e.Source != nil && !known[e.Source.HistoryID]:
			out = append(out, Finding{Kind: KindLessonSource, Key: key, HistoryID: e.Source.HistoryID, Detail: "lesson whose source history is gone (deleted or pruned); the lesson stands"})
		}
	}
	return out, nil
}

// checkHistory checks one metadata record and its transcript, repairing when asked; nil when
// they are fine.
func checkHistory(ctx context.Context, ck store.Checker, hs store.Histories, prefix string, id record.HistoryID, opts *Options) *Finding {
	key := store.ObjectKey(prefix, id)
	f := &Finding{HistoryID: id, Key: key, Problem: true}
	meta, err := hs.GetHistoryMeta(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted since the listing
	case err != nil:
		f.Kind, f.Detail = KindCorruptMetadata, "metadata unreadable: "+err.Error()
		return repairHistory(ctx, ck, f, true, opts)
	}
	data, err := ck.ReadObject(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if still, _ := ck.MetadataExists(ctx, id); !still {
			return nil
		}
		f.Kind, f.Detail = KindMissingContent, "metadata without transcript"
		return repairHistory(ctx, ck, f, false, opts)
	case err != nil:
		f.Kind, f.Detail = KindCorruptContent, "transcript unreadable: "+err.Error()
		return repairHistory(ctx, ck, f, true, opts)
	}
	contents, err := store.DecodeTranscript(id, data)
	if err != nil {
		f.Kind, f.Detail = KindCorruptContent, err.Error()
		return repairHistory(ctx, ck, f, true, opts)
	}
	if len(contents) > meta.MessageCount {
		return &Finding{Kind: KindStaleMetadata, HistoryID: id, Key: key,
			Detail: fmt.Sprintf("transcript holds %d contents, metadata counts %d (a save interrupted after its content); every turn is kept and the next save updates the metadata", len(contents), meta.MessageCount)}
	}
	return nil
}

// repairHistory quarantines a history whose transcript or metadata cannot be used: the
// object (when moveObject) and a copy of the metadata go to lost+found, and the metadata is
// removed.
func repairHistory(ctx context.Context, ck store.Checker, f *Finding, moveObject bool, opts *Options) *Finding {
	if !opts.Repair {
		return f
	}
	if moveObject {
		dest, err := ck.MoveAside(ctx, f.Key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			f.Error = err.Error()
			return f
		}
		f.MovedTo = dest
	}
	dest, err := ck.DropMetadata(ctx, f.HistoryID, f.Kind+": "+f.Detail)
	if err != nil {
		f.Error = err.Error()
		return f
	}
	if f.MovedTo != "" {
		f.MovedTo += ", " + dest
	} else {
		f.MovedTo = dest
	}
	f.Repaired = true
	return f
}
