// Package batch asks many one-shot questions about alerts, several at a time, and writes one
// JSON line per question in input order. Each question is a conversation of its own (a new
// history, or a turn added to the history it names), asked, titled, redacted and saved by a
// session.Session exactly as a one-shot chat is.
package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// Reader is where a batch finds the alerts and histories its questions name.
type Reader interface {
	GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error)
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
}

// Options are a batch's dependencies and settings.
type Options struct {
	Store Reader
	// NewSession starts a session about alert a continuing h, or a new history when h is nil:
	// the same sessions a one-shot chat uses (model, titles, redacted saves). It is called
	// concurrently; each session is used by one goroutine.
	NewSession func(a *record.Alert, h *record.History) (*session.Session, error)
	// Concurrency is how many questions are asked at once (default 1). A session asks a new
	// history's title alongside its answer, so up to twice as many model calls may run.
	Concurrency int
	// DescribeError turns the model's error for a question (from session.Session.Send) into
	// the text of its line's "error" field (default: err.Error()). Input and store errors have
	// messages of their own.
	DescribeError func(error) string
	// Progress, when set, is called after every finished question, from one goroutine.
	Progress func(Progress)
	// NewHistory, when set, gives the history a question that starts a new conversation
	// starts as (nil: a new history with a random ID). A remote batch derives its IDs from its
	// job and returns the stored history when there is one, so that collecting twice finds
	// what the first collection saved.
	NewHistory func(ctx context.Context, q Question) (*record.History, error)
	// Ask, when set, answers q in s instead of asking the model (s.Send): a remote batch
	// completes the turn with its job's answer.
	Ask func(ctx context.Context, s *session.Session, q Question) (*session.Turn, error)
}

// Result is one line of output.
type Result struct {
	// ID is the input line's "id", as given; null when it had none.
	ID        json.RawMessage  `json:"id"`
	Line      int              `json:"line"`
	AlertID   record.AlertID   `json:"alert_id"`
	HistoryID record.HistoryID `json:"history_id"`
	Title     string           `json:"title"`
	Answer    string           `json:"answer"`
	Usage     record.Usage     `json:"usage"`
	// Error is null on success.
	Error *string `json:"error"`
}

// Progress counts finished questions.
type Progress struct {
	Total, Done, Failed int
}

// Summary is the outcome of a run.
type Summary struct {
	Total     int
	Succeeded int
	Failed    int
	// Unfinished are the line numbers of questions that got no output line because the run
	// was interrupted (cancelled while being asked, or never started).
	Unfinished []int
	// Kept are interrupted questions whose partial answer was saved in a history.
	Kept []Kept
}

// Kept is an interrupted question whose partial answer was saved.
type Kept struct {
	Line      int
	HistoryID record.HistoryID
}

// outcome is a worker's report on one question; res is nil when it did not finish.
type outcome struct {
	idx  int
	res  *Result
	kept record.HistoryID
}

// Run asks qs and writes their results to out, one JSON line each, in input order: a result
// is written as soon as every earlier line has been. Questions run Concurrency at a time,
// except questions continuing the same history, which run one after the other in input order
// so that no turn is lost.
//
// When ctx is cancelled, no new question starts and those in flight are cancelled. Every
// finished result is still written, in input order, skipping the unfinished ones (which are
// listed in Summary.Unfinished), and Run returns ctx's error. A failed question is a finished
// one: its line carries the error. Run returns an error of its own only when out fails.
func Run(ctx context.Context, qs []Question, out io.Writer, o Options) (*Summary, error) {
	if o.Store == nil || o.NewSession == nil {
		return nil, goerr.New("batch needs a store and a session factory")
	}
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	if o.DescribeError == nil {
		o.DescribeError = func(err error) string { return err.Error() }
	}
	if o.NewHistory == nil {
		o.NewHistory = func(context.Context, Question) (*record.History, error) { return nil, nil }
	}
	if o.Ask == nil {
		o.Ask = func(ctx context.Context, s *session.Session, q Question) (*session.Turn, error) {
			return s.Send(ctx, q.Query, nil)
		}
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	units := plan(qs)
	unitCh := make(chan []int)
	resCh := make(chan outcome, o.Concurrency)
	a := &asker{o: o, alerts: map[record.AlertID]*record.Alert{}}
	var wg sync.WaitGroup
	for range min(o.Concurrency, len(units)) {
		wg.Go(func() {
			for u := range unitCh {
				a.runUnit(ctx, qs, u, resCh)
			}
		})
	}
	go func() {
		defer close(unitCh)
		for _, u := range units {
			if ctx.Err() != nil {
				return
			}
			select {
			case unitCh <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(resCh)
	}()

	w := &orderedWriter{out: out, results: make([]*Result, len(qs))}
	sum := &Summary{Total: len(qs)}
	record := func(idx int, r *Result) {
		w.results[idx] = r
		if r.Error != nil {
			sum.Failed++
		} else {
			sum.Succeeded++
		}
	}
	progress := func() {
		if o.Progress != nil {
			o.Progress(Progress{Total: len(qs), Done: sum.Succeeded + sum.Failed, Failed: sum.Failed})
		}
	}
	for i, q := range qs {
		if q.Err != nil {
			record(i, errorResult(q, q.Err.Error()))
		}
	}
	progress()
	if err := w.flush(); err != nil {
		cancel()
	}
	for oc := range resCh {
		if oc.res == nil {
			if oc.kept != "" {
				sum.Kept = append(sum.Kept, Kept{Line: qs[oc.idx].Line, HistoryID: oc.kept})
			}
			continue
		}
		record(oc.idx, oc.res)
		progress()
		if err := w.flush(); err != nil {
			cancel() // nowhere to write: stop asking
		}
	}
	// Interrupted: the finished results after the first unfinished one, still in order.
	for i := w.next; i < len(qs); i++ {
		if w.results[i] == nil {
			sum.Unfinished = append(sum.Unfinished, qs[i].Line)
			continue
		}
		w.write(w.results[i])
	}
	if w.err != nil {
		return sum, goerr.Wrap(w.err, "failed to write the results")
	}
	if len(sum.Unfinished) > 0 {
		if err := parent.Err(); err != nil {
			return sum, err
		}
		return sum, goerr.New("questions were left unanswered") // not reached: only ctx stops a run
	}
	return sum, nil
}

// plan groups the questions to ask into units run by one worker each: a question starting a
// new history alone, or every question continuing one history, in input order. Units are in
// the order of their first question.
func plan(qs []Question) [][]int {
	var units [][]int
	byHistory := map[record.HistoryID]int{}
	for i, q := range qs {
		switch {
		case q.Err != nil:
			continue
		case q.HistoryID == "":
			units = append(units, []int{i})
		default:
			if u, ok := byHistory[q.HistoryID]; ok {
				units[u] = append(units[u], i)
				continue
			}
			byHistory[q.HistoryID] = len(units)
			units = append(units, []int{i})
		}
	}
	return units
}

// orderedWriter writes results in input order.
type orderedWriter struct {
	out     io.Writer
	results []*Result // finished results; nil while unfinished
	next    int       // the first line not written yet
	err     error
	buf     bytes.Buffer
}

// flush writes the finished results that every earlier line has been written before.
func (w *orderedWriter) flush() error {
	for w.next < len(w.results) && w.results[w.next] != nil {
		w.write(w.results[w.next])
		w.next++
	}
	return w.err
}

// write writes one line whole, in a single Write.
func (w *orderedWriter) write(r *Result) {
	if w.err != nil {
		return
	}
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		w.err = err
		return
	}
	_, w.err = w.out.Write(w.buf.Bytes())
}

func errorResult(q Question, msg string) *Result {
	return &Result{ID: q.ID, Line: q.Line, AlertID: q.AlertID, HistoryID: q.HistoryID, Error: &msg}
}

// asker asks the questions of units.
type asker struct {
	o Options

	mu     sync.Mutex
	alerts map[record.AlertID]*record.Alert // alerts never change: a cache of those found
	// unavailable is the model's refusal (retired, unknown) once a question has met it: the
	// questions not yet asked get it as their error instead of a request each.
	unavailable error
}

func (a *asker) alert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
	a.mu.Lock()
	al, ok := a.alerts[id]
	a.mu.Unlock()
	if ok {
		return al, nil
	}
	al, err := a.o.Store.GetAlert(ctx, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, goerr.New("no alert "+string(id), goerr.V("alert_id", id))
		}
		return nil, goerr.Wrap(err, "failed to read alert "+string(id))
	}
	a.mu.Lock()
	a.alerts[id] = al
	a.mu.Unlock()
	return al, nil
}

// runUnit asks the questions of one unit in order and reports each on resCh.
func (a *asker) runUnit(ctx context.Context, qs []Question, unit []int, resCh chan<- outcome) {
	var (
		sess     *session.Session // the history continued by every question of the unit
		setupErr error
	)
	if hid := qs[unit[0]].HistoryID; hid != "" && ctx.Err() == nil {
		sess, setupErr = a.openHistory(ctx, hid)
	}
	for _, idx := range unit {
		q := qs[idx]
		if ctx.Err() != nil {
			resCh <- outcome{idx: idx}
			continue
		}
		if setupErr != nil {
			if interrupted(ctx, setupErr) {
				resCh <- outcome{idx: idx}
				continue
			}
			resCh <- outcome{idx: idx, res: errorResult(q, setupErr.Error())}
			continue
		}
		s := sess
		if s == nil {
			al, err := a.alert(ctx, q.AlertID)
			var h *record.History
			if err == nil {
				h, err = a.o.NewHistory(ctx, q)
			}
			if err == nil {
				s, err = a.o.NewSession(al, h)
			}
			if err != nil {
				if interrupted(ctx, err) {
					resCh <- outcome{idx: idx}
				} else {
					resCh <- outcome{idx: idx, res: errorResult(q, err.Error())}
				}
				continue
			}
		} else if q.AlertID != "" && q.AlertID != s.Alert().ID {
			msg := fmt.Sprintf("history %s is about alert %s, not %s", s.History().ID, s.Alert().ID, q.AlertID)
			resCh <- outcome{idx: idx, res: errorResult(q, msg)}
			continue
		}
		resCh <- a.ask(ctx, s, idx, q)
	}
}

func (a *asker) openHistory(ctx context.Context, id record.HistoryID) (*session.Session, error) {
	h, err := a.o.Store.GetHistory(ctx, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, goerr.New("no history "+string(id), goerr.V("history_id", id))
		}
		return nil, goerr.Wrap(err, "failed to read history "+string(id))
	}
	al, err := a.alert(ctx, h.AlertID)
	if err != nil {
		return nil, err
	}
	return a.o.NewSession(al, h)
}

// ask sends one question. A question cancelled by ctx is unfinished; a partial answer it left
// in its history is reported as kept.
func (a *asker) ask(ctx context.Context, s *session.Session, idx int, q Question) outcome {
	a.mu.Lock()
	refused := a.unavailable
	a.mu.Unlock()
	var (
		turn *session.Turn
		err  error
	)
	if refused != nil {
		err = refused
	} else if turn, err = a.o.Ask(ctx, s, q); modelUnavailable(err) {
		a.mu.Lock()
		a.unavailable = err
		a.mu.Unlock()
	}
	h := s.History()
	if interrupted(ctx, err) {
		oc := outcome{idx: idx}
		if turn != nil && turn.SaveErr == nil {
			oc.kept = h.ID
		}
		return oc
	}
	r := &Result{ID: q.ID, Line: q.Line, AlertID: h.AlertID}
	if turn == nil {
		// Nothing was added to the history; a continued one still exists.
		if q.HistoryID != "" {
			r.HistoryID, r.Title = h.ID, h.Title
		}
		msg := a.o.DescribeError(err)
		r.Error = &msg
		return outcome{idx: idx, res: r}
	}
	r.HistoryID, r.Title, r.Answer, r.Usage = h.ID, h.Title, turn.Answer, turn.Usage
	switch {
	case err != nil: // a partial answer, saved
		msg := a.o.DescribeError(err)
		if turn.SaveErr != nil {
			msg += "; the partial answer was not saved: " + turn.SaveErr.Error()
		}
		r.Error = &msg
	case turn.SaveErr != nil:
		msg := "the answer was not saved: " + turn.SaveErr.Error()
		r.Error = &msg
	}
	return outcome{idx: idx, res: r}
}

// modelUnavailable reports whether err says the model cannot be used at all (retired or
// unknown): every other question would get the same answer.
func modelUnavailable(err error) bool {
	var unavailable *modelcfg.UnavailableError
	return errors.As(err, &unavailable)
}

// interrupted reports whether err is the run's own cancellation.
func interrupted(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
}
