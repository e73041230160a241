package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

// HistorySaver is what saving a history needs of a store.
type HistorySaver interface {
	SaveHistory(ctx context.Context, h *record.History) error
}

// Spool keeps, on local disk, histories the store could not take, until a later flush uploads
// them (see package spool). What it is given has already passed the redaction step.
type Spool interface {
	// Put keeps h. key is "" on a session's first Put; the key returned names the session's
	// entry from then on, and every later Put with it replaces that entry's content.
	Put(key string, h *record.History) (string, error)
	// Remove drops the entry of key: its history has been saved.
	Remove(key string) error
}

// Spoolable reports whether a failed save should go to the spool: every failure except the
// ones that retrying later cannot fix or that the save path handles itself (a conflict or a
// deleted history becomes a fork, an invalid request is a bug, and a full local disk would
// refuse the spool too).
func Spoolable(err error) bool {
	return err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) &&
		!errors.Is(err, ErrInvalid) && !errors.Is(err, ErrNoSpace) &&
		!errors.Is(err, context.Canceled)
}

// SaveResult says where a save went.
type SaveResult struct {
	// History is the history as saved: the one given, the stored one when it already held
	// every content given, or the fork that now holds them.
	History *record.History
	// ForkedFrom is set when another writer had saved the history meanwhile (or deleted it):
	// the contents went to History, a new history forked from ForkedFrom.
	ForkedFrom record.HistoryID
}

// maxSaveRounds bounds how often a save is retried after finding that the stored history is
// an earlier state of its own (a flush of its spooled state, for instance) before it forks.
const maxSaveRounds = 5

// historyGetter is what resolving a conflict needs besides SaveHistory.
type historyGetter interface {
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
}

// SaveOrFork saves h, which must already be redacted, without ever overwriting another
// writer's turns. When the store says another writer saved h since it was loaded
// (ErrConflict), the stored history is read and compared with h:
//
//   - the stored transcript already begins with all of h's contents (h was saved before, e.g.
//     by a flush of the spool, and maybe continued since): nothing is written, and the stored
//     history is the result; unless the stored metadata does not describe that transcript yet
//     (its message count is lower), which the next case mends;
//   - h's transcript begins with the whole stored transcript (the stored history is an earlier
//     state of h, or only its metadata changed): h is saved on top of it, keeping a manual
//     title and the verdict (or its absence) set meanwhile;
//   - otherwise the two diverged: h's transcript goes to a new history with ParentID h.ID and
//     ForkPoint the length of the longest common prefix of the two transcripts.
//
// A history deleted meanwhile (ErrNotFound on an update) is forked with ForkPoint 0. So
// every turn is kept exactly once: in the original, or after the fork point of one fork.
//
// Without GetHistory on st, a conflict is returned as is.
func SaveOrFork(ctx context.Context, st HistorySaver, h *record.History, now func() time.Time) (SaveResult, error) {
	if now == nil {
		now = Now
	}
	getter, _ := st.(historyGetter)
	for round := 1; ; round++ {
		err := st.SaveHistory(ctx, h)
		if err == nil {
			return SaveResult{History: h}, nil
		}
		conflict := errors.Is(err, ErrConflict)
		gone := errors.Is(err, ErrNotFound) && h.Revision > 0
		if getter == nil || !conflict && !gone {
			return SaveResult{History: h}, err
		}
		var cur *record.History
		if conflict {
			cur, err = getter.GetHistory(ctx, h.ID)
			switch {
			case errors.Is(err, ErrNotFound):
				cur = nil // deleted since
			case err != nil:
				return SaveResult{History: h}, goerr.Wrap(err, "failed to read the history another writer saved", goerr.V("history_id", h.ID))
			}
		}
		if cur == nil {
			return fork(ctx, st, h, 0, now)
		}
		common := commonPrefix(cur.Contents, h.Contents)
		switch {
		case common == len(h.Contents) && (common < len(cur.Contents) || cur.MessageCount >= common || round >= maxSaveRounds):
			return SaveResult{History: cur}, nil
		case common == len(cur.Contents) && round < maxSaveRounds:
			// (Also when the stored transcript is h's own but its metadata is older: a change of
			// metadata only, such as a resolve, loaded h's transcript while h's metadata write was
			// under way and saved it with the metadata before h; h's questions, usage and the
			// rest are written again.)
			h.Revision, h.ContentVersion = cur.Revision, cur.ContentVersion
			if cur.TitleSource == record.TitleManual && h.TitleSource != record.TitleManual {
				h.Title, h.TitleSource = cur.Title, cur.TitleSource
			}
			// The conclusion is the resolve's and reopen's to change, never a turn's: what is
			// stored stands (a verdict recorded meanwhile is kept, a reopen stays open).
			h.Resolution = cur.Meta().Resolution
			continue
		}
		return fork(ctx, st, h, common, now)
	}
}

// fork saves h's transcript as a new history forked from h at forkPoint.
func fork(ctx context.Context, st HistorySaver, h *record.History, forkPoint int, now func() time.Time) (SaveResult, error) {
	f := h.Meta()
	f.ID = NewHistoryID()
	f.ParentID = h.ID
	f.ForkPoint = forkPoint
	f.Revision, f.ContentVersion = 0, 0
	t := now()
	f.CreatedAt, f.UpdatedAt = t, t
	f.Contents = h.Contents
	f.MessageCount = len(f.Contents)
	res := SaveResult{History: f, ForkedFrom: h.ID}
	err := st.SaveHistory(ctx, f)
	if errors.Is(err, ErrConflict) {
		// A new ID conflicts only with itself: a retried create whose first attempt was stored.
		if getter, ok := st.(historyGetter); ok {
			if cur, gerr := getter.GetHistory(ctx, f.ID); gerr == nil && commonPrefix(cur.Contents, f.Contents) == len(f.Contents) {
				res.History = cur
				return res, nil
			}
		}
	}
	if err != nil {
		return res, goerr.Wrap(err, "failed to save the fork of history "+string(h.ID), goerr.V("history_id", f.ID), goerr.V("parent_id", h.ID))
	}
	return res, nil
}

// IsPrefix reports whether all begins with every content of prefix (equal JSON).
func IsPrefix(prefix, all []*genai.Content) bool {
	return len(prefix) <= len(all) && commonPrefix(prefix, all) == len(prefix)
}

// commonPrefix is how many leading contents a and b share.
func commonPrefix(a, b []*genai.Content) int {
	n := 0
	for n < len(a) && n < len(b) && sameContent(a[n], b[n]) {
		n++
	}
	return n
}

func sameContent(a, b *genai.Content) bool {
	if a == b {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}
