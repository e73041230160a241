package chat

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/geminitest"
)

// firstWrite records when something was first written.
type firstWrite struct {
	mu sync.Mutex
	at time.Time
}

func (f *firstWrite) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at.IsZero() && len(p) > 0 {
		f.at = time.Now()
	}
	return len(p), nil
}

// BenchmarkFirstByte: time from the start of a one-shot on a terminal to the first answer byte,
// for a new conversation on an alert with no earlier one (nothing to judge) and on an alert
// with earlier ones (the same-conversation judge runs). Model calls take 300 ms each; the judge
// declines, so the offer is never shown.
func BenchmarkFirstByte(b *testing.B) {
	const latency = 300 * time.Millisecond
	srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithLatency(latency), geminitest.WithHandler(decliningJudge))
	for _, earlier := range []bool{false, true} {
		name := "new-alert"
		if earlier {
			name = "alert-with-earlier-conversations"
		}
		b.Run(name, func(b *testing.B) {
			ios, _, _ := cmdutil.TestIO("", true)
			benchFirstByte(b, testOptions(b, srv, ios), earlier)
		})
	}
}

// decliningJudge answers the judge DIFFERENT, titles "Title" and questions "answer".
func decliningJudge(r *geminitest.Request) geminitest.Reply {
	switch {
	case r.Kind == geminitest.KindGenerateContent && strings.Contains(r.SystemText(), "continues an earlier conversation"):
		return geminitest.Reply{Text: "1: DIFFERENT\n2: DIFFERENT\n3: DIFFERENT"}
	case r.Kind == geminitest.KindGenerateContent:
		return geminitest.Reply{Text: "Title"}
	}
	return geminitest.Reply{Text: "answer"}
}

// benchFirstByte times one-shots on a terminal from their start to the first answer byte, on a
// new alert whose earlier conversations (three, when earlier) are made first.
func benchFirstByte(b *testing.B, opts *Options, earlier bool) {
	alertID := string(addAlert(b, opts))
	if earlier {
		for range 3 {
			o := *opts
			o.AlertID, o.Query = alertID, "an earlier question"
			o.IO, _, _ = cmdutil.TestIO("", false)
			if err := chatRun(context.Background(), &o); err != nil {
				b.Fatal(err)
			}
		}
	}
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fw := &firstWrite{}
		o := *opts
		o.AlertID, o.Query = alertID, "a new question"
		o.IO, _, _ = cmdutil.TestIO("n\n", true)
		o.IO.Out = fw
		start := time.Now()
		if err := chatRun(context.Background(), &o); err != nil {
			b.Fatal(err)
		}
		total += fw.at.Sub(start)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-byte")
}

// BenchmarkFirstByteGemini3: time from the start of a one-shot on a terminal to the first
// answer byte, on gemini-3.8-flash against the fake in Gemini 3 mode, where thinking takes
// time before the first byte (1 ms a thinking token: the answer at MEDIUM thinks 700 tokens,
// the title and the judge at LOW 160; plus 100 ms of latency per request). "titles-and-judge":
// a new conversation on an alert with earlier ones, its title asked and the judge running
// beside the answer (declining, so nothing is offered); "titles-off": --no-title-generation on
// an alert with no earlier conversation, nothing beside the answer.
func BenchmarkFirstByteGemini3(b *testing.B) {
	srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithGemini3(),
		geminitest.WithLatency(100*time.Millisecond), geminitest.WithThinkingTime(time.Millisecond), geminitest.WithHandler(decliningJudge))
	for _, withAux := range []bool{true, false} {
		name := "titles-off"
		if withAux {
			name = "titles-and-judge"
		}
		b.Run(name, func(b *testing.B) {
			ios, _, _ := cmdutil.TestIO("", true)
			opts := testOptions(b, srv, ios)
			cfg := opts.Config()
			cfg.Model = "gemini-3.8-flash"
			opts.Config = func() cmdutil.Config { return cfg }
			opts.NoTitles = !withAux
			benchFirstByte(b, opts, withAux)
		})
	}
}
