package chat

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Related conversations: when a chat starts on an alert that has no conversation yet, a
// person at a terminal is shown the few most related investigations of other alerts (words and
// indicators of the alert, no model call) and how each ended, on stderr:
//
//	2 earlier investigations of 203.0.113.7: false positive (alice, 11-20), open (bob)
//	  1a2b3c4d  Port probe from our scanner  (alert 9f8e7d6c, 3 days ago): false positive (alice, 11-20)
//	  ...
//
// The verdicts come with the search's own results (the metadata it reads): they add no request.
// What the analyst is shown before typing (an interactive chat) is offered to the model too.
const (
	relatedCount = 3
	// relatedTimeout keeps a slow store from holding up the chat for an offer.
	relatedTimeout = 2 * time.Second
	// maxOfferedNote bounds an earlier conclusion's note in what the model is offered.
	maxOfferedNote = 600
)

// related is what the start of a chat found: the lines shown to the analyst, and the same
// investigations as text for the model.
type related struct {
	lines []string
	offer string
}

// relatedLines returns a function that looks up the related investigations: none when the
// offer does not apply (not a terminal, --no-related, a resumed conversation, an alert with
// other conversations) or fails.
func (c *conversation) relatedLines(ctx context.Context, sess *session.Session) func() related {
	ios := c.opts.IO
	if c.opts.NoRelated || !ios.StderrTTY || len(sess.History().Contents) > 0 {
		return func() related { return related{} }
	}
	// Read now: the session may be answering while the lines are looked up.
	a, self := sess.Alert(), sess.History().ID
	return func() related { return c.lookUpRelated(ctx, a, self) }
}

// relatedHistory is one earlier investigation and the indicator its alert shares with this
// one ("" when it was found by words only).
type relatedHistory struct {
	h      *record.History
	shared string
}

func (c *conversation) lookUpRelated(ctx context.Context, a *record.Alert, self record.HistoryID) related {
	ctx, cancel := context.WithTimeout(ctx, relatedTimeout)
	defer cancel()
	page, err := c.store.ListHistories(ctx, store.HistoryQuery{AlertID: a.ID, Limit: 2})
	if err != nil {
		return related{}
	}
	for _, h := range page.Histories {
		if h.ID != self { // this alert has a conversation already
			return related{}
		}
	}
	s := search.New(search.Options{IndicatorTokens: search.IndicatorTokens(c.store.Redactor.Engine())})
	rs, err := s.Related(ctx, c.store, a, relatedCount)
	if err != nil || len(rs) == 0 {
		if err != nil {
			c.opts.Logger().Debug("related conversations", "error", err)
		}
		return related{}
	}
	found := c.sharedIndicators(ctx, a, rs)
	return related{lines: c.describeRelated(found), offer: offerRelated(found)}
}

// sharedIndicators pairs each result with the indicator its alert shares with a: the alerts
// are read at once (a cloud store keeps a local copy of the alerts it read), and an alert that
// cannot be read shares none.
func (c *conversation) sharedIndicators(ctx context.Context, a *record.Alert, rs []search.Result) []relatedHistory {
	mine := indicators(a)
	out := make([]relatedHistory, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		out[i].h = r.History
		wg.Add(1)
		go func() {
			defer wg.Done()
			other, err := c.store.GetAlert(ctx, r.History.AlertID)
			if err != nil {
				return
			}
			theirs := compounds(other)
			for _, ind := range mine {
				if _, ok := theirs[ind]; ok {
					out[i].shared = ind
					return
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// indicators are the alert's values with inner punctuation (addresses, domains, e-mails,
// ARNs, finding types), each once, most telling first: public IP addresses, then e-mails, then
// names with a dot, then private addresses (every network has a 192.168.0.1), then the rest.
func indicators(a *record.Alert) []string {
	rank := func(s string) int {
		ip, err := netip.ParseAddr(s)
		switch {
		case err == nil && (ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()):
			return 3
		case err == nil:
			return 0
		case strings.Contains(s, "@"):
			return 1
		case strings.Contains(s, ".") && !strings.ContainsAny(s, ":/"):
			return 2
		}
		return 4
	}
	type ranked struct {
		s    string
		rank int
	}
	var rs []ranked
	seen := map[string]struct{}{}
	for _, s := range index.Compounds(index.AlertText(a.Title, a.Data)) {
		if _, ok := seen[s]; !ok {
			seen[s] = struct{}{}
			rs = append(rs, ranked{s, rank(s)})
		}
	}
	slices.SortStableFunc(rs, func(x, y ranked) int { return x.rank - y.rank })
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.s
	}
	return out
}

// compounds are the values indicators ranks, as a set: what another alert shares is looked up
// in it, in no order.
func compounds(a *record.Alert) map[string]struct{} {
	cs := index.Compounds(index.AlertText(a.Title, a.Data))
	set := make(map[string]struct{}, len(cs))
	for _, s := range cs {
		set[s] = struct{}{}
	}
	return set
}

// describeRelated is what the analyst is shown: a line per shared indicator saying how its
// investigations ended, then one line per investigation.
func (c *conversation) describeRelated(found []relatedHistory) []string {
	var order []string
	groups := map[string][]*record.History{}
	for _, f := range found {
		if _, ok := groups[f.shared]; !ok {
			order = append(order, f.shared)
		}
		groups[f.shared] = append(groups[f.shared], f.h)
	}
	var lines []string
	for _, shared := range order {
		hs := groups[shared]
		of := "related alerts"
		if shared != "" {
			of = termsafe.Line(shared)
		}
		outcomes := make([]string, len(hs))
		for i, h := range hs {
			outcomes[i] = conclude.Outcome(h, time.Local)
		}
		lines = append(lines, fmt.Sprintf("%s of %s: %s", format.Plural(len(hs), "earlier investigation", "earlier investigations"), of, strings.Join(outcomes, ", ")))
	}
	now := store.Now()
	for _, f := range found {
		h := f.h
		lines = append(lines, fmt.Sprintf("  %s  %s  (alert %s, %s): %s", format.ShortID(string(h.ID)),
			c.opts.clip(h.Title), format.ShortID(string(h.AlertID)), format.RelativeTime(now, h.UpdatedAt), conclude.Outcome(h, time.Local)))
	}
	return append(lines, "  (alertchat history show ID)")
}

// offerRelated is the same investigations for the model: leads, with their conclusions.
func offerRelated(found []relatedHistory) string {
	var b strings.Builder
	b.WriteString("Earlier investigations in this workspace of alerts related to this one, and how they ended (the analyst was shown them; read one with get_history):")
	for _, f := range found {
		h := f.h
		fmt.Fprintf(&b, "\n- history %s %q about alert %s", h.ID, termsafe.Line(h.Title), h.AlertID)
		if f.shared != "" {
			fmt.Fprintf(&b, " (shares %s)", termsafe.Line(f.shared))
		}
		if r := h.Resolution; r != nil {
			fmt.Fprintf(&b, ": %s, resolved by %s on %s", r.Verdict.Label(), termsafe.Line(r.ResolvedBy), format.RFC3339(r.ResolvedAt))
			if note := termsafe.Line(r.Note); note != "" {
				fmt.Fprintf(&b, ": %s", format.TruncateWords(note, maxOfferedNote, format.Ellipsis))
			}
			continue
		}
		b.WriteString(": still open")
		if as := h.Analysts(); len(as) > 0 {
			fmt.Fprintf(&b, " (asked by %s)", termsafe.Line(strings.Join(as, ", ")))
		}
	}
	return b.String()
}

// printLines writes lines to stderr.
func (c *conversation) printLines(lines []string) {
	for _, l := range lines {
		fmt.Fprintln(c.opts.IO.ErrOut, l)
	}
}
