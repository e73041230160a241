package chat

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// BenchmarkFirstByteRelated: time from the start of a one-shot on a terminal to the first
// answer byte on a new alert whose address three earlier investigations shared, resolved: the
// earlier investigations and their verdicts are looked up and shown, and must not hold up the
// answer. Model calls take 300 ms.
func BenchmarkFirstByteRelated(b *testing.B) {
	srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithLatency(300*time.Millisecond),
		geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
			if r.Kind == geminitest.KindGenerateContent {
				return geminitest.Reply{Text: "Title"}
			}
			return geminitest.Reply{Text: "answer"}
		}))
	ios, _, _ := cmdutil.TestIO("", true)
	opts := testOptions(b, srv, ios)
	ctx := context.Background()
	put := func(i int) string {
		s, err := opts.OpenStore(ctx, factory.StoreOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		a := &record.Alert{ID: record.AlertID(fmt.Sprintf("0f1e2d3c-aaaa-5000-8000-%012d", i)), Title: "Port probe",
			Data: []byte(fmt.Sprintf(`{"Title":"Port probe","RemoteIp":"203.0.113.7","Instance":"i-%08d"}`, i))}
		if _, err := s.PutAlert(ctx, a); err != nil {
			b.Fatal(err)
		}
		return string(a.ID)
	}
	var earlier []string
	for i := range 3 {
		o := *opts
		o.AlertID, o.Query, o.NoRelated = put(i), "Who owns 203.0.113.7?", true
		o.IO, _, _ = cmdutil.TestIO("", false)
		out := &strings.Builder{}
		o.IO.Out = out
		if err := chatRun(ctx, &o); err != nil {
			b.Fatal(err)
		}
		earlier = append(earlier, o.AlertID)
	}
	resolveAll(b, opts, earlier)
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		alertID := put(1000 + i)
		b.StartTimer()
		fw := &firstWrite{}
		o := *opts
		o.AlertID, o.Query, o.NoTitles = alertID, "Seen before?", true
		var stderr *bytes.Buffer
		o.IO, _, stderr = cmdutil.TestIO("", true)
		o.IO.Out = fw
		start := time.Now()
		if err := chatRun(ctx, &o); err != nil {
			b.Fatal(err)
		}
		total += fw.at.Sub(start)
		if !strings.Contains(stderr.String(), "3 earlier investigations of 203.0.113.7") {
			b.Fatalf("the earlier investigations were not shown: %q", stderr.String())
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-byte")
}

// resolveAll resolves the histories of alerts.
func resolveAll(b *testing.B, opts *Options, alerts []string) {
	ctx := context.Background()
	s, err := opts.OpenStore(ctx, factory.StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, a := range alerts {
		page, err := s.ListHistories(ctx, store.HistoryQuery{AlertID: record.AlertID(a)})
		if err != nil || len(page.Histories) != 1 {
			b.Fatal(err)
		}
		if _, err := store.UpdateHistory(ctx, s, page.Histories[0].ID, func(h *record.History) error {
			h.Resolution = &record.Resolution{Verdict: record.VerdictFalsePositive, ResolvedBy: "alice", ResolvedAt: store.Now()}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndicators: the indicators of a large alert (5,000 addresses, each twice), ranked
// before the first question of an interactive chat.
func BenchmarkIndicators(b *testing.B) {
	var data bytes.Buffer
	data.WriteString(`{"Title":"Scan","events":[`)
	for i := range 10000 {
		if i > 0 {
			data.WriteByte(',')
		}
		fmt.Fprintf(&data, `{"src":"198.51.%d.%d","user":"u%d@example.com"}`, i%5000/250, i%250, i%5000)
	}
	data.WriteString(`]}`)
	a := &record.Alert{ID: "0f1e2d3c-aaaa-5000-8000-000000000001", Title: "Scan", Data: data.Bytes()}
	b.ReportAllocs()
	for b.Loop() {
		if len(indicators(a)) < 10000 {
			b.Fatal("indicators missing")
		}
	}
}
