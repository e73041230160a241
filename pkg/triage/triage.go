// Package triage gives new alerts their first look: each is investigated as a one-shot chat
// would (the caller's Investigator), then asked for a verdict with a confidence and the
// evidence it rests on (the caller's Concluder, the structured-output path of history resolve
// --suggest and eval), and the proposal is recorded on the investigation's history and on the
// alert.
//
// Invariants:
//   - A proposal is never a resolution: the history stays open, the alert stays open.
//   - An alert is triaged once: the alert's triage is written conditionally on the one it had
//     when the run chose it (store.AlertTriager), and the run that loses a race takes its
//     proposal off its history, which stays as an ordinary investigation (Result.Lost).
//   - A failed investigation or verdict is an error for that alert, never a verdict.
//   - Nothing the model says writes anything but the proposal itself.
package triage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// DefaultQuestion is what each alert's investigation asks (Question names the alert in it).
const DefaultQuestion = "Triage this alert before an analyst opens it: investigate what happened with the tools you have, " +
	"decide whether it is a real threat, a false positive or benign activity, and say what evidence supports that."

// Question is the triage question about a: DefaultQuestion after the alert's title, so that
// the history's title, made from its first question, names the alert.
func Question(a *record.Alert) string {
	title := strings.Join(strings.Fields(a.Title), " ")
	if title == "" {
		return DefaultQuestion
	}
	return "Alert: " + title + "\n" + DefaultQuestion
}

// Investigation is what an alert's one-shot investigation produced.
type Investigation struct {
	Answer   string
	Contents []*genai.Content
	Usage    record.Usage
	// HistoryID is the history the investigation was saved as ("" when it could not be).
	HistoryID record.HistoryID
}

// Investigator investigates one alert with the triage question.
type Investigator func(ctx context.Context, a *record.Alert, question string) (*Investigation, error)

// Concluder asks for the verdict of an investigation and the evidence it rests on.
type Concluder func(ctx context.Context, a *record.Alert, contents []*genai.Content) (*conclude.Suggestion, error)

// Store is what recording a triage needs.
type Store interface {
	store.HistoryUpdater
	store.AlertTriager
}

// Item is an alert to triage: the alert, and the history of the triage it has when chosen ("" for
// none), which a retriage replaces.
type Item struct {
	Alert *record.Alert
	Prev  record.HistoryID
}

// Options tune Run.
type Options struct {
	Model       string
	Question    string // Question(alert) when empty
	Concurrency int
	// MaxCostTokens, when above 0, stops starting investigations once the tokens spent pass it;
	// the ones in flight finish and are kept.
	MaxCostTokens int64
	Investigate   Investigator
	Conclude      Concluder
	Store         Store
	// Load reads an alert whose Item holds it without its data (a listing's).
	Load func(ctx context.Context, id record.AlertID) (*record.Alert, error)
	// Describe turns an alert's error into its message (nil: err.Error()).
	Describe func(error) string
	// OnResult is told of each finished alert, as it finishes (one call at a time).
	OnResult func(*Result)
	Now      func() time.Time
}

// Result is one alert's triage.
type Result struct {
	AlertID   record.AlertID   `json:"alert_id"`
	HistoryID record.HistoryID `json:"history_id"`
	// Verdict is nil on an error line, as is Confidence.
	Verdict    *record.Verdict         `json:"verdict"`
	Confidence *float64                `json:"confidence"`
	Evidence   []record.TriageEvidence `json:"evidence"`
	Error      *string                 `json:"error"`
	Usage      record.Usage            `json:"usage"`
	// Lost is set when another run triaged the alert first: this investigation stays as an
	// ordinary history (HistoryID), without a proposal. It is counted as skipped.
	Lost bool `json:"-"`
	// Title is the alert's, for a table.
	Title string `json:"-"`
	err   error
}

// Err is the alert's error as returned (nil for a triage).
func (r *Result) Err() error { return r.err }

// Summary is what Run did.
type Summary struct {
	Results []*Result
	// NotStarted counts the alerts left when --max-cost-tokens was reached.
	NotStarted  int
	Tokens      int64
	Interrupted bool
}

// Run triages items, Concurrency at a time, newest first as given. A cancelled context stops
// starting alerts and cancels those in flight (they are not results); what finished is kept.
func Run(ctx context.Context, items []Item, o Options) *Summary {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	sum := &Summary{}
	var (
		mu     sync.Mutex
		next   int
		tokens atomic.Int64
	)
	take := func() (Item, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(items) {
			return Item{}, false
		}
		if o.MaxCostTokens > 0 && tokens.Load() > o.MaxCostTokens {
			sum.NotStarted = len(items) - next
			next = len(items)
			return Item{}, false
		}
		it := items[next]
		next++
		return it, true
	}
	var wg sync.WaitGroup
	for range min(max(o.Concurrency, 1), len(items)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				it, ok := take()
				if !ok {
					return
				}
				r := one(ctx, it, o, now)
				tokens.Add(r.Usage.Total())
				if ctx.Err() != nil && r.err != nil && errors.Is(r.err, context.Canceled) {
					return // cut short by the interruption: not a result
				}
				mu.Lock()
				sum.Results = append(sum.Results, r)
				if o.OnResult != nil {
					o.OnResult(r)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	sum.Tokens = tokens.Load()
	sum.Interrupted = ctx.Err() != nil
	return sum
}

// one triages one alert.
func one(ctx context.Context, it Item, o Options, now func() time.Time) *Result {
	a := it.Alert
	r := &Result{AlertID: a.ID, Title: a.Title, Evidence: []record.TriageEvidence{}}
	fail := func(err error) *Result {
		r.err = err
		msg := err.Error()
		if o.Describe != nil {
			msg = o.Describe(err)
		}
		r.Error = &msg
		return r
	}
	if a.Data == nil && o.Load != nil {
		full, err := o.Load(ctx, a.ID)
		if err != nil {
			return fail(err)
		}
		a = full
	}
	question := o.Question
	if question == "" {
		question = Question(a)
	}
	inv, err := o.Investigate(ctx, a, question)
	if inv != nil {
		r.Usage, r.HistoryID = inv.Usage, inv.HistoryID
	}
	if err != nil {
		return fail(err)
	}
	if inv.HistoryID == "" {
		return fail(goerr.New("the investigation could not be saved", goerr.V("alert_id", a.ID)))
	}
	sg, err := o.Conclude(ctx, a, inv.Contents)
	if sg != nil {
		r.Usage = r.Usage.Add(sg.Usage)
	}
	if err != nil {
		return fail(err)
	}
	conclude.Ground(sg, conclude.SourcesOf(a, inv.Contents))
	t := &record.Triage{Verdict: sg.Verdict, Confidence: sg.Confidence, Model: o.Model, At: now().UTC(), Evidence: []record.TriageEvidence{}}
	for _, e := range sg.Evidence {
		t.Evidence = append(t.Evidence, record.TriageEvidence{Value: e.Value, Claim: e.Claim, Unsupported: e.Unsupported})
	}
	// The proposal goes on the history first, then on the alert, conditionally: a history
	// never lacks the proposal an alert points at.
	h, err := store.UpdateHistory(ctx, o.Store, inv.HistoryID, func(h *record.History) error {
		h.Triage = t
		return nil
	})
	if err != nil {
		return fail(err)
	}
	switch err := o.Store.TriageAlert(ctx, a.ID, h.AlertTriage(), it.Prev); {
	case errors.Is(err, store.ErrConflict):
		r.Lost = true
		if _, err := store.UpdateHistory(ctx, o.Store, inv.HistoryID, func(h *record.History) error {
			h.Triage = nil
			return nil
		}); err != nil {
			return fail(goerr.Wrap(err, "another run triaged the alert first, and this investigation's proposal could not be taken off its history"))
		}
		return r
	case err != nil:
		return fail(err)
	}
	r.Verdict, r.Confidence = &t.Verdict, &t.Confidence
	// What the history stores is redacted; the line shows the same evidence.
	r.Evidence = h.Triage.Evidence
	return r
}

// Line is the run in one line, for stderr (skipped: the alerts the selection skipped as
// triaged already; maxCost: --max-cost-tokens): "12 triaged: 7 false_positive, 3 benign,
// 2 true_positive; 1 skipped; 0 failed; 48210 tokens".
func (sum *Summary) Line(skipped int, maxCost int64) string {
	counts := map[record.Verdict]int{}
	triaged, failed := 0, 0
	for _, r := range sum.Results {
		switch {
		case r.Error != nil:
			failed++
		case r.Lost:
			skipped++
		default:
			triaged++
			counts[*r.Verdict]++
		}
	}
	verdicts := slices.Clone(record.Verdicts)
	slices.SortStableFunc(verdicts, func(a, b record.Verdict) int { return cmp.Compare(counts[b], counts[a]) })
	var parts []string
	for _, v := range verdicts {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	line := fmt.Sprintf("%d triaged", triaged)
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	line += fmt.Sprintf("; %d skipped; %d failed; %d tokens", skipped, failed, sum.Tokens)
	if sum.NotStarted > 0 {
		line += fmt.Sprintf("; %d not started (--max-cost-tokens %d reached)", sum.NotStarted, maxCost)
	}
	if sum.Interrupted {
		line += "; interrupted"
	}
	return line
}
