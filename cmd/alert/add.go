package alert

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/alert/stage"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// AddOptions are "alert add"'s.
type AddOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Files are the alert files in order; "-" is stdin.
	Files []string
	// AllEvents keeps the events of a stream that are not alerts (Suricata flow, dns, ...).
	AllEvents bool
	// Stage tunes where findings wait until every input has been read (tests).
	Stage stage.Options
	// StoreTimeout is --store-timeout, the store's time for a call; requests are sized to fit
	// its time for an attempt (requestTime). Zero is the default.
	StoreTimeout time.Duration
}

// NewCmdAdd is "alertchat alert add -f FILE [FILE...]". runF replaces the work (tests).
func NewCmdAdd(f *factory.Factory, runF func(context.Context, *AddOptions) error) *cli.Command {
	opts := &AddOptions{IO: f.IO, OpenStore: f.OpenStore}
	var first string
	return &cli.Command{
		Name:  "add",
		Usage: "store the findings of alert files (one finding, an envelope of several, or newline-delimited JSON) and print their IDs, one a line, in order",
		Description: `Reads each file (or stdin with -f -) and stores every finding it holds: one finding object, an
envelope of several (AWS {"Findings": [...]}, GuardDuty's {"findings": [...]}, Security Command Center
lists and notifications, EventBridge events) or newline-delimited JSON (Suricata eve.json, Falco, a
SIEM's export). Prints one ID a line, in input order; adding the same finding again prints the same ID.

Examples:
  alertchat alert add -f finding.json
  alertchat alert add -f findings/*.json
  aws guardduty get-findings --detector-id D --finding-ids F1 F2 | alertchat alert add -f -

Exit status: 2 when an input (or a line or element of it) is not a finding, naming its place; nothing
of that input is stored. An envelope holding no finding is a notice, exit 0.`,
		UsageText: "alertchat alert add -f FILE [FILE...]   (-f - reads stdin; a shell glob gives several files)\n" +
			"e.g. aws guardduty get-findings --detector-id D --finding-ids ID... | alertchat alert add -f -\n" +
			"     gcloud scc findings list organizations/ORG --format=json | alertchat alert add -f -\n" +
			"     alertchat alert add -f /var/log/suricata/eve.json   (the alerts; --all-events keeps flow, dns, ... too)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "alert JSON file, - for stdin; more files may follow as arguments", Required: true, Destination: &first},
			&cli.BoolFlag{Name: "all-events", Usage: "keep every event of a stream, not only its alerts (Suricata's flow, dns, http, stats, ... records)", Destination: &opts.AllEvents},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			opts.Files = append([]string{first}, c.Args().Slice()...)
			if f.Config != nil {
				opts.StoreTimeout = f.Config().StoreTimeout
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return addRun(ctx, opts)
		},
	}
}

// A store request takes a batch of alerts: one transaction locally, a few in Firestore. Fewer,
// larger transactions are faster (5,000 alerts a transaction added 100,000 some 40% faster than
// 1,000), but one request must end well within the store's time for an attempt (requestTime),
// or the store gives it up, tries it again and fails the add on a healthy backend; how many
// alerts fit depends on the machine and its load (1,000 took 1.3 s to store locally in a
// -race build on one core, 3.1 s with the machine loaded). So the first request is small,
// firstBatch, and each next one holds as many alerts as fit in requestTime at the speed the
// last one measured, at most four times the last batch's size (one quick request is a noisy
// measure) and maxBatch; maxBatchBytes bounds the memory it holds (8 MB let a 1 GB stream peak
// at 134 MB against 114 MB for 256 MB; 4 MB at 98 and 93).
const (
	firstBatch    = 100
	maxBatch      = 8000
	minBatch      = 10
	maxBatchBytes = 4 << 20
	// attemptShare is the part of the store's attempt time a request aims at: a machine that
	// slows down five times between two requests still fits.
	attemptShare = 5
)

// requestTime is how long one store request of an add aims to take: a fifth of the store's
// time for an attempt within the budget of --store-timeout. 1 s by default.
func requestTime(storeTimeout time.Duration) time.Duration {
	return resilient.AttemptTimeout(storeTimeout) / attemptShare
}

// addRun reads every input to its end before storing anything, so a bad finding anywhere
// stores nothing (exit 2); each input's findings wait in a stage (pkg/alert/stage) that keeps
// memory flat however long the input. Then they are stored in batches, each batch's IDs printed
// once it is stored. A finding already stored, or repeated within its input, is stored once and
// printed once; re-adding prints the same IDs.
func addRun(ctx context.Context, opts *AddOptions) error {
	if n := countStdin(opts.Files); n > 1 {
		return cmdutil.UsageErrorf("stdin (-) can be read only once")
	}
	inputs := make([]io.ReadCloser, 0, len(opts.Files))
	defer func() {
		for _, in := range inputs {
			_ = in.Close()
		}
	}()
	for _, path := range opts.Files {
		in, err := cmdutil.OpenInput(opts.IO, path)
		if err != nil {
			return err
		}
		inputs = append(inputs, in)
	}
	s, err := report.OpenAndUpload(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	readers := make([]io.Reader, len(inputs))
	for i, in := range inputs {
		readers[i] = in
	}
	return addTo(ctx, opts, s, s.MaxAlertSize, readers)
}

// addTo adds the findings of inputs (opts.Files names them) to s, which takes alerts of at
// most backendMax bytes (0: no limit of its own).
func addTo(ctx context.Context, opts *AddOptions, s store.Store, backendMax int, inputs []io.Reader) error {
	maxSize := maxAlertSize(backendMax)
	st := stage.New(ctx, opts.Stage)
	defer st.Close()
	read := alert.Options{MaxSize: maxSize, AllEvents: opts.AllEvents}
	for i, in := range inputs {
		if err := stageInput(opts.IO.ErrOut, st, i, cmdutil.InputName(opts.Files[i]), in, read); err != nil {
			return err
		}
	}
	return storeStaged(ctx, opts.IO.Out, s, st, requestTime(opts.StoreTimeout))
}

// stageInput reads one input's findings into st, and says on w how many repeated an earlier
// finding of the input, how many events that are not alerts it skipped, and when it held no
// finding at all (an empty envelope: a scheduled export that found nothing is no fault).
func stageInput(w io.Writer, st *stage.Stage, input int, name string, in io.Reader, read alert.Options) error {
	repeats, example, found := 0, "", 0
	var stats alert.Stats
	for f, err := range alert.ReadWith(in, read, &stats) {
		if err != nil {
			return lookup.InputError(name, err)
		}
		found++
		first, dup, err := st.Add(input, f.Alert, f.Place.String())
		if err != nil {
			return err
		}
		if dup {
			if repeats++; example == "" {
				example = fmt.Sprintf("%s repeats %s", f.Place, first)
			}
		}
	}
	if repeats > 0 {
		fmt.Fprintf(w, "%s: %s the same as an earlier one, stored once (%s).\n", name,
			format.Plural(repeats, "finding is", "findings are"), example)
	}
	if sum := stats.SkippedSummary(); sum != "" {
		fmt.Fprintf(w, "%s: %s (--all-events keeps them).\n", name, sum)
	}
	if found == 0 && len(stats.Empty) > 0 {
		fmt.Fprintf(w, "%s: no findings to add (%s).\n", name, emptyWhat(stats.Empty))
	}
	return nil
}

// emptyWhat says which envelopes held no finding.
func emptyWhat(lists []string) string {
	if len(lists) == 1 {
		if lists[0] == "[]" {
			return "the list is empty"
		}
		return "its " + lists[0] + " list is empty"
	}
	return format.Plural(len(lists), "envelope holds", "envelopes hold") + " no finding"
}

// storeStaged stores the staged findings in order, stamped with strictly increasing times so
// that alert list shows them newest first, in batches sized so that a request takes about
// target, and prints each batch's IDs once it is stored.
func storeStaged(ctx context.Context, out io.Writer, s store.Store, st *stage.Stage, target time.Duration) error {
	w := bufio.NewWriter(out)
	size, held := firstBatch, 0
	batch := make([]*record.Alert, 0, size)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		start := time.Now()
		if _, err := s.PutAlerts(ctx, batch); err != nil {
			return goerr.Wrap(err, "failed to store alerts", goerr.V("first_alert_id", batch[0].ID))
		}
		size = nextBatch(size, len(batch), time.Since(start), target)
		for _, a := range batch {
			fmt.Fprintln(w, a.ID)
		}
		batch, held = batch[:0], 0
		return w.Flush()
	}
	var last time.Time
	err := st.Each(func(_ int, a *record.Alert) error {
		now := store.Now()
		if !now.After(last) {
			now = last.Add(time.Microsecond)
		}
		a.CreatedAt, last = now, now
		batch, held = append(batch, a), held+len(a.Data)
		if len(batch) >= size || held >= maxBatchBytes {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// nextBatch is the batch size after a request of n alerts (of a batch of size) took took: the
// alerts the store stores in target at that speed, at most four times size and maxBatch, at
// least minBatch.
func nextBatch(size, n int, took, target time.Duration) int {
	fit := maxBatch
	if took > 0 {
		fit = int(min(float64(n)*float64(target)/float64(took), maxBatch))
	}
	return max(minBatch, min(fit, 4*size, maxBatch))
}

// maxAlertSize is the largest finding a backend that holds at most backendMax bytes takes:
// alert.MaxSize, or less where the backend holds less.
func maxAlertSize(backendMax int) int {
	if n := backendMax; n > 0 {
		return min(alert.MaxSize, n)
	}
	return alert.MaxSize
}

func countStdin(files []string) int {
	return len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f != "-" }))
}
