package sessionutil

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
)

// KnowledgeAhead is the lookup of one alert's notes started before its session, beside the
// work that must come first (storing an alert read from a file, chat -f): the lookup needs only
// the alert's content, so it does not wait for the alert's write, and the session takes its
// result instead of asking again. It is a session.Knowledge: any other alert is looked up as
// its source would.
type KnowledgeAhead struct {
	src     session.Knowledge
	id      record.AlertID
	done    chan struct{}
	entries []*record.Knowledge
	err     error
	cancel  context.CancelFunc
}

// LookUpAhead starts src's lookup of a's notes now. Stop ends it.
func LookUpAhead(ctx context.Context, src session.Knowledge, a *record.Alert) *KnowledgeAhead {
	ctx, cancel := context.WithCancel(ctx)
	k := &KnowledgeAhead{src: src, id: a.ID, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(k.done)
		k.entries, k.err = src.ForAlert(ctx, a)
	}()
	return k
}

// ForAlert implements session.Knowledge: the lookup started ahead, waited for, when a is its
// alert.
func (k *KnowledgeAhead) ForAlert(ctx context.Context, a *record.Alert) ([]*record.Knowledge, error) {
	if a.ID != k.id {
		return k.src.ForAlert(ctx, a)
	}
	select {
	case <-k.done:
		return k.entries, k.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Stop gives the lookup up, if it is still under way, and waits for it to end.
func (k *KnowledgeAhead) Stop() {
	k.cancel()
	<-k.done
}
