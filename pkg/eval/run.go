package eval

import (
	"context"
	"errors"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/record"
)

// Item is a case with its alert, read or stored before the evaluation starts.
type Item struct {
	Case  Case
	Alert *record.Alert
}

// Investigation is what a case's chat produced: its answer, the whole live transcript (tool
// calls and results included) and what it cost.
type Investigation struct {
	Answer   string
	Contents []*genai.Content
	Usage    record.Usage
	// KnowledgeIDs are the team knowledge entries the investigation was given.
	KnowledgeIDs []record.KnowledgeID
}

// Investigator investigates one alert with one question, as a one-shot chat would.
type Investigator func(ctx context.Context, model string, a *record.Alert, question string) (*Investigation, error)

// Concluder asks model for the verdict of an investigation and the evidence it rests on.
type Concluder func(ctx context.Context, model string, a *record.Alert, contents []*genai.Content) (*conclude.Suggestion, error)

// Options tune Evaluate.
type Options struct {
	Models      []string
	Repeat      int
	Concurrency int
	Investigate Investigator
	// Investigated, when set, takes Investigate's place: each run's investigation was made
	// elsewhere (a Batch API job) and is looked up by its model, case and repeat.
	Investigated func(ctx context.Context, model string, it *Item, repeat int) (*Investigation, error)
	Conclude     Concluder
	// Knowledge says whether investigations are given the team's knowledge (not
	// --no-knowledge): the report says it per model, the comparison a team runs.
	Knowledge bool
	// Fatal reports whether an error means the model cannot be used at all (it does not exist
	// or is retired): that model's remaining runs are not started, and the error is said once.
	Fatal func(error) bool
	// Describe turns a run's error into its message (nil: err.Error()).
	Describe func(error) string
	// Progress is told after every finished run.
	Progress func(Progress)
	Now      func() time.Time
}

// Progress is how far an evaluation is.
type Progress struct {
	Done, Total, Errors int
	Tokens              int64
}

// Run is one investigation of one case by one model.
type Run struct {
	Case   string `json:"-"`
	Model  string `json:"model"`
	Repeat int    `json:"repeat"`
	// Verdict is the suggested verdict ("" when the run failed).
	Verdict     record.Verdict      `json:"verdict,omitempty"`
	Correct     bool                `json:"correct"`
	Conclusion  string              `json:"conclusion,omitempty"`
	Evidence    []conclude.Evidence `json:"evidence"`
	Unsupported int                 `json:"unsupported"`
	Mentioned   []string            `json:"mentioned"`
	Missed      []string            `json:"missed"`
	ToolCalls   int                 `json:"tool_calls"`
	// Knowledge are the IDs of the team knowledge entries the run's investigation was given.
	Knowledge []string     `json:"knowledge_ids"`
	Usage     record.Usage `json:"usage"`
	Seconds   float64      `json:"seconds"`
	// Error is why the run failed (a model error after its retries, a cut stream): counted as
	// an error, never as a wrong verdict.
	Error string `json:"error,omitempty"`
	// err is the run's error as returned.
	err error
}

// Failed reports whether the run ended without a verdict.
func (r *Run) Failed() bool { return r.Error != "" }

// Result is what Evaluate returns: every run that finished, and the errors that stopped a
// model (one each).
type Result struct {
	Runs []*Run
	// Stopped maps a model to the error that made its remaining runs pointless.
	Stopped map[string]error
	// Interrupted is set when the context ended before every run finished.
	Interrupted bool
	// Knowledge is Options.Knowledge.
	Knowledge bool
	Seconds   float64
}

type job struct {
	item   *Item
	model  string
	repeat int
}

// Evaluate runs every case Repeat times with every model, Concurrency runs at a time (models
// interleaved, so a comparison stays fair when it is cut short). It returns the runs that
// finished, in model, case and repeat order; a cancelled context stops starting runs, cancels
// those in flight (they are not counted) and returns what finished.
func Evaluate(ctx context.Context, items []Item, o Options) *Result {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	repeat, workers := max(o.Repeat, 1), max(o.Concurrency, 1)
	var jobs []job
	for r := 1; r <= repeat; r++ {
		for i := range items {
			for _, m := range o.Models {
				jobs = append(jobs, job{item: &items[i], model: m, repeat: r})
			}
		}
	}

	res := &Result{Stopped: map[string]error{}, Knowledge: o.Knowledge}
	var (
		mu   sync.Mutex
		prog = Progress{Total: len(jobs)}
		next int
	)
	take := func() (job, bool) {
		mu.Lock()
		defer mu.Unlock()
		for next < len(jobs) {
			j := jobs[next]
			next++
			if _, stopped := res.Stopped[j.model]; stopped {
				prog.Total--
				continue
			}
			return j, true
		}
		return job{}, false
	}
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				j, ok := take()
				if !ok {
					return
				}
				run := runOne(ctx, j, o, now)
				if ctx.Err() != nil && run.err != nil && errors.Is(run.err, context.Canceled) {
					return // cut short by the interruption: not a result
				}
				mu.Lock()
				if run.err != nil && o.Fatal != nil && o.Fatal(run.err) {
					if _, seen := res.Stopped[j.model]; !seen {
						res.Stopped[j.model] = run.err
					}
					prog.Total--
					mu.Unlock()
					continue
				}
				res.Runs = append(res.Runs, run)
				prog.Done++
				prog.Tokens += run.Usage.Total()
				if run.Failed() {
					prog.Errors++
				}
				p := prog
				mu.Unlock()
				if o.Progress != nil {
					o.Progress(p)
				}
			}
		})
	}
	wg.Wait()
	res.Interrupted = ctx.Err() != nil
	res.Seconds = now().Sub(start).Seconds()
	caseIndex := map[string]int{}
	for i, it := range items {
		caseIndex[it.Case.ID] = i
	}
	modelIndex := map[string]int{}
	for i, m := range o.Models {
		modelIndex[m] = i
	}
	sortRuns(res.Runs, modelIndex, caseIndex)
	return res
}

// runOne investigates j's case, asks for the verdict and scores it.
func runOne(ctx context.Context, j job, o Options, now func() time.Time) *Run {
	c := j.item.Case
	run := &Run{Case: c.ID, Model: j.model, Repeat: j.repeat, Evidence: []conclude.Evidence{}, Mentioned: []string{}, Missed: []string{}, Knowledge: []string{}}
	start := now()
	defer func() { run.Seconds = now().Sub(start).Seconds() }()
	fail := func(err error) *Run {
		run.err = err
		run.Error = err.Error()
		if o.Describe != nil {
			run.Error = o.Describe(err)
		}
		return run
	}
	q := c.Question
	if q == "" {
		q = DefaultQuestion
	}
	var inv *Investigation
	var err error
	if o.Investigated != nil {
		inv, err = o.Investigated(ctx, j.model, j.item, j.repeat)
	} else {
		inv, err = o.Investigate(ctx, j.model, j.item.Alert, q)
	}
	if inv != nil {
		run.Usage = inv.Usage
		for _, id := range inv.KnowledgeIDs {
			run.Knowledge = append(run.Knowledge, string(id))
		}
	}
	if err != nil {
		return fail(err)
	}
	run.ToolCalls = countCalls(inv.Contents)
	sg, err := o.Conclude(ctx, j.model, j.item.Alert, inv.Contents)
	if sg != nil {
		run.Usage = run.Usage.Add(sg.Usage)
	}
	if err != nil {
		return fail(err)
	}
	run.Verdict, run.Conclusion = sg.Verdict, sg.Conclusion
	run.Correct = sg.Verdict == c.Verdict
	run.Unsupported = conclude.Ground(sg, conclude.SourcesOf(j.item.Alert, inv.Contents))
	run.Evidence = append(run.Evidence, sg.Evidence...)
	said := []string{inv.Answer, sg.Conclusion}
	for _, e := range sg.Evidence {
		said = append(said, e.Value, e.Claim)
	}
	named := conclude.SourcesOfText(said...)
	for _, m := range c.MustMention {
		if named.Holds(m) {
			run.Mentioned = append(run.Mentioned, m)
		} else {
			run.Missed = append(run.Missed, m)
		}
	}
	return run
}

// countCalls counts the function calls of the model in contents.
func countCalls(contents []*genai.Content) int {
	n := 0
	for _, c := range contents {
		if c == nil || c.Role != genai.RoleModel {
			continue
		}
		for _, p := range c.Parts {
			if p != nil && p.FunctionCall != nil {
				n++
			}
		}
	}
	return n
}
