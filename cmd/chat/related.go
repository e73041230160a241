package chat

import (
	"context"
	"fmt"
	"time"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// Related conversations: when a chat starts on an alert that has no conversation yet, a
// person at a terminal is shown the few most related conversations of other alerts (words and
// indicators of the alert, no model call), one line each on stderr.
const (
	relatedCount = 3
	// relatedTimeout keeps a slow store from holding up the chat for an offer.
	relatedTimeout = 2 * time.Second
)

// relatedLines returns a function that looks up the lines offering related conversations:
// none when the offer does not apply (not a terminal, --no-related, a resumed conversation, an
// alert with other conversations) or fails.
func (c *conversation) relatedLines(ctx context.Context, sess *session.Session) func() []string {
	ios := c.opts.IO
	if c.opts.NoRelated || !ios.StderrTTY || len(sess.History().Contents) > 0 {
		return func() []string { return nil }
	}
	// Read now: the session may be answering while the lines are looked up.
	a, self := sess.Alert(), sess.History().ID
	return func() []string { return c.lookUpRelated(ctx, a, self) }
}

func (c *conversation) lookUpRelated(ctx context.Context, a *record.Alert, self record.HistoryID) []string {
	ctx, cancel := context.WithTimeout(ctx, relatedTimeout)
	defer cancel()
	page, err := c.store.ListHistories(ctx, store.HistoryQuery{AlertID: a.ID, Limit: 2})
	if err != nil {
		return nil
	}
	for _, h := range page.Histories {
		if h.ID != self { // this alert has a conversation already
			return nil
		}
	}
	s := search.New(search.Options{IndicatorTokens: search.IndicatorTokens(c.store.Redactor.Engine())})
	rs, err := s.Related(ctx, c.store, a, relatedCount)
	if err != nil || len(rs) == 0 {
		if err != nil {
			c.opts.Logger().Debug("related conversations", "error", err)
		}
		return nil
	}
	lines := []string{"Related conversations about other alerts (alertchat history show ID):"}
	now := store.Now()
	for _, r := range rs {
		h := r.History
		lines = append(lines, fmt.Sprintf("  %s  %s  (alert %s, %s)", format.ShortID(string(h.ID)),
			c.opts.clip(h.Title), format.ShortID(string(h.AlertID)), format.RelativeTime(now, h.UpdatedAt)))
	}
	return lines
}

// printLines writes lines to stderr.
func (c *conversation) printLines(lines []string) {
	for _, l := range lines {
		fmt.Fprintln(c.opts.IO.ErrOut, l)
	}
}
