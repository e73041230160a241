// Package samechat decides which conversation the first question of a new chat goes to: the new
// one, or an earlier conversation about the same alert that the question continues, as judged
// by the model (Judge) and accepted by the user or taken automatically. Every failure
// keeps the new conversation: the judgement is an offer, never a reason to lose a question.
//
// Two ways to use it. Route judges first and answers after (--continue=auto: the user asked
// for the matching conversation, so the answer waits for the judgement). Begin judges in the
// background while the question is answered at once in the new conversation, so the first
// answer byte comes as fast as in any new conversation; when the judge finds a match, the
// caller offers to ask the question again there (Open).
package samechat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Histories is what the router reads.
type Histories interface {
	ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error)
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
}

// Matcher judges whether question continues one of candidates (Judge).
type Matcher interface {
	Match(ctx context.Context, question string, candidates []*record.History, load JudgeLoader) (*record.History, error)
}

// Router sends a new chat's first question to its conversation: the new one, or an earlier one it
// continues, offered to the user or taken with Auto.
type Router struct {
	Store   Histories
	Matcher Matcher
	// NewSession opens a session on an earlier history.
	NewSession func(*record.History) (*session.Session, error)
	// Auto continues a match without asking (--continue=auto).
	Auto bool
	// Title, when set, is the user's own title, applied to the conversation continued.
	Title string
	// Notify tells the user what happened (one line, no newline); nil is silent.
	Notify func(string)
	// Busy is called while the judge works and returns a function that ends the busy state (a
	// spinner); nil does nothing.
	Busy   func() (done func())
	Logger *slog.Logger
}

// Applies reports whether a chat may be offered an earlier conversation: a new conversation
// that the user did not ask to resume.
func Applies(sess *session.Session, resumeAsked bool) bool {
	return !resumeAsked && len(sess.History().Contents) == 0
}

// Route returns the session the first question goes to: sess, or an earlier conversation the
// judge matched and ask accepted (or Auto took). With neither ask nor Auto nothing is judged.
func (r *Router) Route(ctx context.Context, sess *session.Session, question string, ask func(description string) bool) *session.Session {
	if r == nil || (!r.Auto && ask == nil) || strings.TrimSpace(question) == "" {
		return sess
	}
	page, err := r.Store.ListHistories(ctx, store.HistoryQuery{AlertID: sess.Alert().ID, Limit: MaxJudgeCandidates})
	if err != nil || len(page.Histories) == 0 {
		if err != nil {
			r.debug("cannot list earlier conversations", err)
		}
		return sess
	}
	match, err := r.match(ctx, question, page.Histories)
	if err != nil {
		r.debug("same-conversation judgement failed", err)
		// A model that cannot be used is said once, by the answer's own error.
		var unavailable *modelcfg.UnavailableError
		if r.Auto && !errors.As(err, &unavailable) {
			r.notify("Could not tell whether this continues an earlier conversation: starting a new one.")
		}
		return sess
	}
	if match == nil {
		if r.Auto {
			r.notify("No earlier conversation about this alert matches: starting a new one.")
		}
		return sess
	}
	if !r.Auto && !ask(Describe(match, store.Now())) {
		return sess
	}
	next, err := r.Open(ctx, match)
	if err != nil {
		r.notify(fmt.Sprintf("Cannot continue the earlier conversation (%v): starting a new one.", err))
		return sess
	}
	return next
}

// Judgement is a same-conversation judgement under way (Begin).
type Judgement struct {
	r     *Router
	done  chan struct{}
	match *record.History
	err   error
}

// Begin starts judging, in the background, whether question continues one of the alert's
// earlier conversations other than sess's own. It returns nil when there is nothing to judge.
// ctx bounds the judgement.
func (r *Router) Begin(ctx context.Context, sess *session.Session, question string) *Judgement {
	if r == nil || strings.TrimSpace(question) == "" {
		return nil
	}
	alertID, self := sess.Alert().ID, sess.History().ID
	j := &Judgement{r: r, done: make(chan struct{})}
	go func() {
		defer close(j.done)
		// One more than judged: the new conversation may already be listed once saved.
		page, err := r.Store.ListHistories(ctx, store.HistoryQuery{AlertID: alertID, Limit: MaxJudgeCandidates + 1})
		if err != nil {
			j.err = err
			return
		}
		var candidates []*record.History
		for _, h := range page.Histories {
			if h.ID != self && len(candidates) < MaxJudgeCandidates {
				candidates = append(candidates, h)
			}
		}
		if len(candidates) == 0 {
			return
		}
		j.match, j.err = r.Matcher.Match(ctx, question, candidates, func(ctx context.Context, meta *record.History) (*record.History, error) {
			return r.Store.GetHistory(ctx, meta.ID)
		})
	}()
	return j
}

// Wait returns the matched conversation, or nil when none matches, the judgement failed
// (logged) or ctx ended first. While it waits, Busy shows it.
func (j *Judgement) Wait(ctx context.Context) *record.History {
	if j == nil {
		return nil
	}
	select {
	case <-j.done:
	default:
		if j.r.Busy != nil {
			done := j.r.Busy()
			defer done()
		}
		select {
		case <-j.done:
		case <-ctx.Done():
			return nil
		}
	}
	if j.err != nil {
		j.r.debug("same-conversation judgement failed", j.err)
		return nil
	}
	return j.match
}

// Open opens the matched conversation (Router.Open).
func (j *Judgement) Open(ctx context.Context, match *record.History) (*session.Session, error) {
	return j.r.Open(ctx, match)
}

// Open returns a session on the matched conversation (its transcript loaded), with the user's
// own title applied, and says so.
func (r *Router) Open(ctx context.Context, match *record.History) (*session.Session, error) {
	full := match
	if full.Contents == nil {
		var err error
		if full, err = r.Store.GetHistory(ctx, match.ID); err != nil {
			return nil, err
		}
	}
	next, err := r.NewSession(full)
	if err != nil {
		return nil, err
	}
	if r.Title != "" {
		if err := next.SetTitle(ctx, r.Title); err != nil {
			r.debug("cannot set the title", err)
		}
	}
	r.notify(fmt.Sprintf("Continuing %q (%s), %s.", termsafe.Line(full.Title), full.ID, format.Plural(full.MessageCount, "message", "messages")))
	return next, nil
}

// Describe is the offer's sentence for a matched conversation.
func Describe(h *record.History, now time.Time) string {
	return fmt.Sprintf("This looks like the earlier conversation %q (%s, %s, updated %s).",
		termsafe.Line(h.Title), format.ShortID(string(h.ID)), format.Plural(h.MessageCount, "message", "messages"), format.RelativeTime(now, h.UpdatedAt))
}

func (r *Router) match(ctx context.Context, question string, candidates []*record.History) (*record.History, error) {
	if r.Busy != nil {
		done := r.Busy()
		defer done()
	}
	return r.Matcher.Match(ctx, question, candidates, func(ctx context.Context, meta *record.History) (*record.History, error) {
		return r.Store.GetHistory(ctx, meta.ID)
	})
}

func (r *Router) notify(msg string) {
	if r.Notify != nil {
		r.Notify(msg)
	}
}

func (r *Router) debug(msg string, err error) {
	if r.Logger != nil {
		r.Logger.Debug(msg, "error", err)
	}
}

// Yes reports whether an answer to a [y/N] question is yes.
func Yes(answer string) bool {
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true
	}
	return false
}
