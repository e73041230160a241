// Package report says to the user what the store and the model did, as the commands that
// reach either share it: the door through which a command opens the workspace's store and
// uploads the turns the spool kept during an outage (OpenAndUpload, WithUploadedStore; the
// upload alone: UploadSpool, Flush), where a turn went when it was not simply saved (Save), and the messages of model
// errors (DescribeModelError). It holds no session nor tool: a command that only reads the
// store (history, alert) or lists models links neither.
package report

import (
	"context"
	"fmt"
	"io"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store/spool"
)

// Spooled is a store with a spool beside it that keeps turns locally while the backend is down
// (the workspace's store).
type Spooled interface {
	// Spool is the local spool, nil when it could not be opened.
	Spool() *spool.Spool
	// Flush uploads the turns the spool keeps.
	Flush(ctx context.Context) (*spool.Report, error)
}

// SpooledStore is a store a command opens, closes and whose spool it uploads.
type SpooledStore interface {
	Spooled
	Close() error
}

// OpenAndUpload is the commands' one door to the workspace's store: it opens the store with
// open and o, then uploads the turns its spool keeps (kept by an earlier command during an
// outage) and tells the user on w what it did (UploadSpool). Opening alone writes nothing (the
// factory's OpenStore); the upload is here, in the name, so a command that must not write
// (history sync, which uploads verbosely itself) opens without it. The caller closes the store.
func OpenAndUpload[O any, S SpooledStore](ctx context.Context, w io.Writer, open func(context.Context, O) (S, error), o O) (S, error) {
	s, err := open(ctx, o)
	if err != nil {
		var zero S
		return zero, err
	}
	UploadSpool(ctx, w, s)
	return s, nil
}

// WithUploadedStore opens the store and uploads its spool through OpenAndUpload, runs fn with
// it, and closes it.
func WithUploadedStore[O any, S SpooledStore](ctx context.Context, w io.Writer, open func(context.Context, O) (S, error), o O, fn func(S) error) error {
	s, err := OpenAndUpload(ctx, w, open, o)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

// UploadSpool uploads the turns the spool keeps (kept by an earlier command during an outage)
// and tells the user on w what it did. A failed upload leaves them there and warns: the
// command still runs.
func UploadSpool(ctx context.Context, w io.Writer, st Spooled) {
	sp := st.Spool()
	if sp == nil {
		return
	}
	rep, err := st.Flush(ctx)
	Flush(w, sp.Dir(), rep, err, false)
}

// Flush tells the user, on stderr, what a spool flush did; verbose (history sync) also
// reports entries found already uploaded and an empty spool.
func Flush(w io.Writer, dir string, rep *spool.Report, err error, verbose bool) {
	for _, u := range rep.Uploaded {
		switch {
		case u.ForkedFrom != "":
			fmt.Fprintf(w, "Uploaded turns kept locally: history %s was changed or removed meanwhile, so they went to a new history %s (a fork of it).\n", u.ForkedFrom, u.HistoryID)
		case u.AlreadySaved:
			if verbose {
				fmt.Fprintf(w, "History %s already held the turns kept locally.\n", u.HistoryID)
			}
		default:
			fmt.Fprintf(w, "Uploaded turns kept locally to history %s (%d messages).\n", u.HistoryID, u.Messages)
		}
	}
	for _, r := range rep.Rejected {
		fmt.Fprintf(w, "Warning: the store refused a conversation kept locally; it was moved to %s.\n", r)
	}
	if err != nil {
		fmt.Fprintf(w, "Warning: %s kept locally in %s could not be uploaded yet: %s\nThey stay there; a later command, or 'alertchat history sync', uploads them.\n",
			format.Plural(max(rep.Pending, 1), "conversation", "conversations"), dir, cmdutil.OneLine(cmdutil.Message(err)))
		return
	}
	if verbose && len(rep.Uploaded) == 0 && rep.Pending == 0 {
		fmt.Fprintln(w, "Nothing to upload: no turns are kept locally.")
	}
}

// Save tells the user, on stderr, where a turn went when it is not simply saved: to a fork
// (another writer saved the history meanwhile) or to the local spool (the store failed).
func Save(w io.Writer, turn *session.Turn, h *record.History) {
	if turn == nil {
		return
	}
	if turn.ForkedFrom != "" {
		fmt.Fprintf(w, "Note: history %s was changed by another writer since it was loaded; this turn was saved to a new history %s (a fork of it). Continue with: alertchat chat --history %s\n",
			turn.ForkedFrom, h.ID, h.ID)
	}
	if turn.Spooled {
		fmt.Fprintf(w, "Warning: the store is unavailable (%s); this turn of history %s is kept locally (in the spool of the data directory) and will be uploaded by the next command that reaches the store, or by 'alertchat history sync'.\n",
			cmdutil.OneLine(cmdutil.Message(turn.SpoolCause)), h.ID)
	}
}
