package resilient_test

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/redacting"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// BenchmarkStack is what the command line's stack (redaction, retries and the
// breaker) adds to the calls commands make of a local store of 500 histories and alerts.
//
// The calls run under a context like a command's (main.go's signal.NotifyContext), which can
// be cancelled: the SQLite driver and database/sql start a goroutine per query to watch such a
// context (one that cannot be cancelled costs them nothing), and every attempt of the retrying
// layer has a deadline, so under context.Background the benchmark would charge the stack with
// what commands pay anyway.
func BenchmarkStack(b *testing.B) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	backend, err := local.Open(ctx, local.Options{Dir: b.TempDir(), Workspace: "default"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = backend.Close() })
	var alerts []*record.Alert
	for i := range 500 {
		alerts = append(alerts, &record.Alert{ID: record.AlertID(fmt.Sprintf("alert-%04d", i)), Title: fmt.Sprintf("suspicious login %d", i), Severity: "high", Data: []byte(`{"ip": "198.51.100.7"}`)})
	}
	if _, err := backend.PutAlerts(ctx, alerts); err != nil {
		b.Fatal(err)
	}
	var first *record.History
	for i := range 500 {
		h := storetest.NewHistory(alerts[i].ID, storetest.Transcript(4))
		h.Title = fmt.Sprintf("login from 198.51.100.%d", i%250)
		storetest.Save(b, backend, h)
		if first == nil {
			first = h
		}
	}
	st := redacting.New(resilient.New(backend, resilient.Options{}), redacthist.Engine(redact.New(redact.AllTypes()...)))
	words := search.New(search.Options{})
	ids := make([]record.AlertID, 50)
	for i := range ids {
		ids[i] = alerts[i].ID
	}
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"GetHistory", func() error { _, err := st.GetHistory(ctx, first.ID); return err }},
		{"ListHistories", func() error { _, err := st.ListHistories(ctx, store.HistoryQuery{Limit: 50}); return err }},
		{"CountHistories", func() error { _, err := counter(st).CountHistories(ctx, store.HistoryQuery{}); return err }},
		{"SearchHistories", func() error {
			_, err := words.Search(ctx, st, search.Query{Text: "login 198.51.100.7", Limit: 20})
			return err
		}},
		{"SearchAlerts", func() error {
			_, err := alertSearcher(st).SearchAlerts(ctx, store.AlertSearchQuery{Text: "suspicious login", Limit: 20})
			return err
		}},
		{"AlertInvestigations", func() error { _, err := investigationCounter(st).AlertInvestigations(ctx, ids); return err }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if err := tc.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
