package triage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/triage"
)

type fixture struct {
	s      *local.Store
	items  []triage.Item
	starts atomic.Int64
}

// newFixture stores n alerts, each about the address 198.51.100.<i>; an alert titled "fail"
// makes the investigation fail.
func newFixture(t *testing.T, titles ...string) *fixture {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	fx := &fixture{s: s}
	for i, title := range titles {
		a := &record.Alert{ID: record.AlertID(fmt.Sprintf("alert-%02d", i)), Title: title,
			Data: json.RawMessage(fmt.Sprintf(`{"title":%q,"ip":"198.51.100.%d"}`, title, i)), CreatedAt: store.Now()}
		if _, err := s.PutAlert(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		fx.items = append(fx.items, triage.Item{Alert: a})
	}
	return fx
}

// options investigate by saving a history of the question and an answer, and conclude
// false_positive citing the alert's address and one value seen nowhere.
func (fx *fixture) options(t *testing.T) triage.Options {
	return triage.Options{
		Model: "gemini-test", Concurrency: 2, Store: fx.s,
		Investigate: func(ctx context.Context, a *record.Alert, q string) (*triage.Investigation, error) {
			fx.starts.Add(1)
			if a.Title == "fail" {
				return &triage.Investigation{Usage: record.Usage{InputTokens: 10}}, errors.New("the model failed")
			}
			if q != "Alert: "+a.Title+"\n"+triage.DefaultQuestion {
				t.Errorf("question %q", q)
			}
			h := storetest.NewHistory(a.ID, []*genai.Content{genai.NewContentFromText(q, genai.RoleUser), genai.NewContentFromText("Looked.", genai.RoleModel)})
			if err := fx.s.SaveHistory(ctx, h); err != nil {
				return nil, err
			}
			return &triage.Investigation{Contents: h.Contents, HistoryID: h.ID, Usage: record.Usage{InputTokens: 100}}, nil
		},
		Conclude: func(ctx context.Context, a *record.Alert, _ []*genai.Content) (*conclude.Suggestion, error) {
			var d struct{ IP string }
			_ = json.Unmarshal(a.Data, &d)
			return &conclude.Suggestion{Verdict: record.VerdictFalsePositive, Confidence: 0.75, Conclusion: "A scanner.", Usage: record.Usage{OutputTokens: 5},
				Evidence: []conclude.Evidence{{Value: d.IP, Claim: "the scanner"}, {Value: "192.0.2.250", Claim: "made up"}}}, nil
		},
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		titles []string
		// pre: an alert triaged by another run before this one records its own.
		pre       int
		maxCost   int64
		triaged   int
		failed    int
		lost      int
		notStated int
	}{
		{name: "all", titles: []string{"a", "b", "c", "d", "e"}, pre: -1, triaged: 5},
		{name: "one fails, the others go on", titles: []string{"a", "fail", "c"}, pre: -1, triaged: 2, failed: 1},
		{name: "another run triaged one first", titles: []string{"a", "b", "c"}, pre: 1, triaged: 2, lost: 1},
		{name: "the cost bound stops starting", titles: []string{"a", "b", "c", "d", "e"}, pre: -1, maxCost: 150, triaged: 2, notStated: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, tc.titles...)
			o := fx.options(t)
			if tc.maxCost > 0 {
				o.Concurrency, o.MaxCostTokens = 1, tc.maxCost
			}
			if tc.pre >= 0 {
				if err := fx.s.TriageAlert(ctx, fx.items[tc.pre].Alert.ID, &record.AlertTriage{HistoryID: "other-run", Verdict: record.VerdictBenign}, ""); err != nil {
					t.Fatal(err)
				}
			}
			var told atomic.Int64
			o.OnResult = func(*triage.Result) { told.Add(1) }
			sum := triage.Run(ctx, fx.items, o)
			triaged, failed, lost := 0, 0, 0
			for _, r := range sum.Results {
				h, herr := fx.s.GetHistoryMeta(ctx, r.HistoryID)
				at, aerr := fx.s.AlertTriage(ctx, r.AlertID)
				if aerr != nil {
					t.Fatal(aerr)
				}
				switch {
				case r.Error != nil:
					failed++
					if r.Verdict != nil || at != nil || !strings.Contains(*r.Error, "the model failed") || r.Usage.InputTokens != 10 {
						t.Errorf("failed alert: %+v, triage %+v", r, at)
					}
				case r.Lost:
					lost++
					if herr != nil || h.Triage != nil || at.HistoryID != "other-run" || r.Verdict != nil {
						t.Errorf("lost race: %+v, history %+v (%v), alert's triage %+v", r, h, herr, at)
					}
				default:
					triaged++
					if herr != nil || h.Triage == nil || h.Resolution != nil || at == nil || at.HistoryID != r.HistoryID || *r.Verdict != record.VerdictFalsePositive ||
						*r.Confidence != 0.75 || at.Model != "gemini-test" || r.Usage.Total() != 105 {
						t.Fatalf("triaged: %+v, history %+v (%v), alert's triage %+v", r, h, herr, at)
					}
					if ev := h.Triage.Evidence; len(ev) != 2 || ev[0].Unsupported || !ev[1].Unsupported || len(r.Evidence) != 2 {
						t.Errorf("evidence %+v", ev)
					}
				}
			}
			if triaged != tc.triaged || failed != tc.failed || lost != tc.lost || sum.NotStarted != tc.notStated || told.Load() != int64(len(sum.Results)) {
				t.Fatalf("triaged %d, failed %d, lost %d, not started %d, told %d: %+v", triaged, failed, lost, sum.NotStarted, told.Load(), sum)
			}
			if int(fx.starts.Load()) != len(tc.titles)-tc.notStated {
				t.Fatalf("%d investigations started", fx.starts.Load())
			}
		})
	}
}

// Cancelled: no alert is started after the interruption, and what finished is kept.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, "a", "b", "c", "d")
	o := fx.options(t)
	o.Concurrency = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.OnResult = func(*triage.Result) { cancel() }
	sum := triage.Run(ctx, fx.items, o)
	if !sum.Interrupted || len(sum.Results) != 1 || sum.Results[0].Verdict == nil || fx.starts.Load() != 1 {
		t.Fatalf("%+v, %d started", sum, fx.starts.Load())
	}
}

func TestSummaryLine(t *testing.T) {
	t.Parallel()
	v := func(s record.Verdict) *record.Verdict { return &s }
	msg := "boom"
	sum := &triage.Summary{Tokens: 48210, Results: []*triage.Result{
		{Verdict: v(record.VerdictBenign)}, {Verdict: v(record.VerdictFalsePositive)}, {Verdict: v(record.VerdictFalsePositive)},
		{Verdict: v(record.VerdictTruePositive)}, {Error: &msg}, {Lost: true},
	}}
	want := "4 triaged: 2 false_positive, 1 true_positive, 1 benign; 2 skipped; 1 failed; 48210 tokens"
	if got := sum.Line(1, 0); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	sum = &triage.Summary{NotStarted: 3, Interrupted: true}
	if got := sum.Line(0, 1000); got != "0 triaged; 0 skipped; 0 failed; 0 tokens; 3 not started (--max-cost-tokens 1000 reached); interrupted" {
		t.Fatalf("got %q", got)
	}
}
