package spool_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/spool"
)

// secretRedactor replaces "secret".
type secretRedactor struct{}

func (secretRedactor) RedactContents(cs []*genai.Content) map[string]int {
	n := 0
	for _, c := range cs {
		for _, p := range c.Parts {
			if strings.Contains(p.Text, "secret") {
				p.Text = strings.ReplaceAll(p.Text, "secret", "[REDACTED_SECRET]")
				n++
			}
		}
	}
	return map[string]int{"SECRET": n}
}

func (secretRedactor) RedactString(s string) (string, map[string]int) {
	return strings.ReplaceAll(s, "secret", "[REDACTED_SECRET]"), nil
}

func openSpool(t *testing.T, root, backend string) *spool.Spool {
	t.Helper()
	sp, err := spool.Open(spool.Options{Root: root, Backend: backend, Workspace: "default", Redactor: secretRedactor{}})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func openStore(t *testing.T) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func text(s, role string) *genai.Content { return genai.NewContentFromText(s, genai.Role(role)) }

func turn(q string) []*genai.Content {
	return []*genai.Content{text(q, genai.RoleUser), text("answer to "+q, genai.RoleModel)}
}

// extend returns h's metadata with contents appended, as a session continuing h would save it.
func extend(h *record.History, qs ...string) *record.History {
	c := *h.Meta()
	c.Contents = append([]*genai.Content(nil), h.Contents...)
	for _, q := range qs {
		c.Contents = append(c.Contents, turn(q)...)
	}
	c.MessageCount = len(c.Contents)
	return &c
}

func TestPutIsAtomicPrivateAndRedacted(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "spool")
	sp := openSpool(t, root, "local:/x")
	h := storetest.NewHistory("alert-1", turn("my secret is hunter2"))
	h.Title = "secret title"
	key, err := sp.Put("", h)
	if err != nil {
		t.Fatal(err)
	}
	// Two more states of the same entry: only the newest is kept.
	if _, err := sp.Put(key, extend(h, "second")); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Put(key, extend(h, "second", "third")); err != nil {
		t.Fatal(err)
	}
	var files []string
	err = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if info.IsDir() {
			want = 0o700
		} else {
			files = append(files, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if strings.Contains(string(data), "secret") {
				t.Errorf("%s holds unredacted text: %s", p, data)
			}
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !strings.HasSuffix(files[0], "."+"3.json") {
		t.Fatalf("files %v, want the third state only (no temporary files)", files)
	}
	es, err := sp.Entries()
	if err != nil || len(es) != 1 {
		t.Fatalf("entries: %v, %d", err, len(es))
	}
	cs, err := es[0].Transcript()
	if err != nil || len(cs) != 6 || es[0].History.ID != h.ID || es[0].Backend != "local:/x" {
		t.Fatalf("entry: %v, %d contents, %+v", err, len(cs), es[0].History)
	}
}

func TestCrashBetweenStatesKeepsNewest(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	sp := openSpool(t, root, "local:/x")
	h := storetest.NewHistory("alert-1", turn("q0"))
	key, err := sp.Put("", h)
	if err != nil {
		t.Fatal(err)
	}
	// A crash after writing state 2 but before removing state 1 leaves both files.
	old, _ := os.ReadFile(filepath.Join(sp.Dir(), key+".1.json"))
	if _, err := sp.Put(key, extend(h, "q1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sp.Dir(), key+".1.json"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	es, err := sp.Entries()
	if err != nil || len(es) != 1 || es[0].Seq != 2 {
		t.Fatalf("entries after a crash between states: %v %d", err, len(es))
	}
	st := openStore(t)
	if _, err := sp.Flush(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetHistory(context.Background(), h.ID)
	if err != nil || len(got.Contents) != 4 {
		t.Fatalf("flushed: %v", err)
	}
	if left, _ := os.ReadDir(sp.Dir()); len(left) != 0 {
		t.Fatalf("files left after the flush: %v", left)
	}
}

// TestFlushOrderAndForks: two sessions continued the same history during an outage. The
// first spooled keeps the history, the second becomes a fork, and every turn is there once.
func TestFlushOrderAndForks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	base := storetest.NewHistory("alert-1", turn("q0"))
	if err := st.SaveHistory(ctx, base); err != nil {
		t.Fatal(err)
	}
	sp := openSpool(t, t.TempDir(), "local:/x")
	if _, err := sp.Put("", extend(base, "from first")); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Put("", extend(base, "from second")); err != nil {
		t.Fatal(err)
	}
	// A brand-new history created during the outage.
	created := storetest.NewHistory("alert-1", turn("new"))
	if _, err := sp.Put("", created); err != nil {
		t.Fatal(err)
	}
	rep, err := sp.Flush(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Uploaded) != 3 || rep.Pending != 0 {
		t.Fatalf("report %+v", rep)
	}
	if u := rep.Uploaded[0]; u.HistoryID != base.ID || u.ForkedFrom != "" {
		t.Fatalf("first entry: %+v", u)
	}
	fork := rep.Uploaded[1]
	if fork.ForkedFrom != base.ID || fork.HistoryID == base.ID {
		t.Fatalf("second entry did not fork: %+v", fork)
	}
	orig, _ := st.GetHistory(ctx, base.ID)
	f, _ := st.GetHistory(ctx, fork.HistoryID)
	var all []string
	for _, c := range append(orig.Contents, f.Contents[f.ForkPoint:]...) {
		all = append(all, c.Parts[0].Text)
	}
	if want := "[q0 answer to q0 from first answer to from first from second answer to from second]"; fmt.Sprint(all) != want {
		t.Fatalf("turns %v", all)
	}
	if _, err := st.GetHistory(ctx, created.ID); err != nil {
		t.Fatalf("history created during the outage: %v", err)
	}
}

// TestFlushIsIdempotent: a flush that uploaded an entry and crashed before removing it does
// not duplicate the turns when the entry is flushed again, even after the history went on.
func TestFlushIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	base := storetest.NewHistory("alert-1", turn("q0"))
	if err := st.SaveHistory(ctx, base); err != nil {
		t.Fatal(err)
	}
	sp := openSpool(t, t.TempDir(), "local:/x")
	key, err := sp.Put("", extend(base, "q1"))
	if err != nil {
		t.Fatal(err)
	}
	saved, _ := os.ReadFile(filepath.Join(sp.Dir(), key+".1.json"))
	if _, err := sp.Flush(ctx, st); err != nil {
		t.Fatal(err)
	}
	// The crash: the entry is back. Meanwhile someone continued the history.
	if err := os.WriteFile(filepath.Join(sp.Dir(), key+".1.json"), saved, 0o600); err != nil {
		t.Fatal(err)
	}
	cur, _ := st.GetHistory(ctx, base.ID)
	next := extend(cur, "q2")
	if err := st.SaveHistory(ctx, next); err != nil {
		t.Fatal(err)
	}
	rep, err := sp.Flush(ctx, st)
	if err != nil || len(rep.Uploaded) != 1 || !rep.Uploaded[0].AlreadySaved {
		t.Fatalf("re-flush: %v %+v", err, rep)
	}
	list, _ := st.ListHistories(ctx, store.HistoryQuery{})
	got, _ := st.GetHistory(ctx, base.ID)
	if len(list.Histories) != 1 || len(got.Contents) != 6 {
		t.Fatalf("%d histories, %d contents: a re-flush duplicated turns", len(list.Histories), len(got.Contents))
	}
}

// outageStore fails every save while down is set.
type outageStore struct {
	*local.Store
	down  atomic.Bool
	saves atomic.Int32
}

func (o *outageStore) SaveHistory(ctx context.Context, h *record.History) error {
	o.saves.Add(1)
	if o.down.Load() {
		return errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	}
	return o.Store.SaveHistory(ctx, h)
}

func TestFailedFlushLeavesSpoolIntact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &outageStore{Store: openStore(t)}
	sp := openSpool(t, t.TempDir(), "local:/x")
	for i := range 3 {
		if _, err := sp.Put("", storetest.NewHistory("alert-1", turn(fmt.Sprint("q", i)))); err != nil {
			t.Fatal(err)
		}
	}
	st.down.Store(true)
	rep, err := sp.Flush(ctx, st)
	if err == nil || rep.Pending != 3 || st.saves.Load() != 1 {
		t.Fatalf("flush in an outage: %v %+v, %d saves (it should stop at the first failure)", err, rep, st.saves.Load())
	}
	if es, _ := sp.Entries(); len(es) != 3 {
		t.Fatalf("%d entries left, want 3", len(es))
	}
	st.down.Store(false)
	if rep, err := sp.Flush(ctx, st); err != nil || len(rep.Uploaded) != 3 {
		t.Fatalf("flush after the outage: %v %+v", err, rep)
	}
}

func TestSpoolIsPerBackend(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cloudSpool := openSpool(t, root, "cloud:p/(default)/b/")
	if _, err := cloudSpool.Put("", storetest.NewHistory("alert-1", turn("q0"))); err != nil {
		t.Fatal(err)
	}
	localSpool := openSpool(t, root, "local:/data|")
	st := openStore(t)
	rep, err := localSpool.Flush(context.Background(), st)
	if err != nil || len(rep.Uploaded) != 0 {
		t.Fatalf("a local flush took a cloud entry: %v %+v", err, rep)
	}
	if es, _ := cloudSpool.Entries(); len(es) != 1 {
		t.Fatal("the cloud entry is gone")
	}
	other, err := spool.Open(spool.Options{Root: root, Backend: "cloud:p/(default)/b/", Workspace: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := other.Entries(); len(es) != 0 {
		t.Fatal("another workspace sees the entry")
	}
}

// alertsOf serves one alert.
type alertsOf struct{ a *record.Alert }

func (g alertsOf) GetAlert(_ context.Context, id record.AlertID) (*record.Alert, error) {
	if id != g.a.ID {
		return nil, store.ErrNotFound
	}
	return g.a, nil
}

// A history that goes through the spool is written as the session's own save writes it: the
// values its alert holds are kept, other values become the same tokens.
func TestPutRedactsLikeADirectSave(t *testing.T) {
	t.Parallel()
	tk, err := redact.NewTokenizer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	red := redacthist.Engine(redact.New(redact.AllTypes()...).WithTokens(tk))
	alert := &record.Alert{ID: "a1", Data: []byte(`{"src":"203.0.113.7"}`)}
	hid := store.NewHistoryID()
	h := func() *record.History {
		return &record.History{ID: hid, AlertID: alert.ID, Title: "scan from 203.0.113.7 to 198.51.100.9",
			Contents: turn("was 203.0.113.7 talking to 198.51.100.9?")}
	}
	direct := h()
	redacthist.History(red.ForAlert(alert), direct)

	for _, tc := range []struct {
		name   string
		alerts redacthist.AlertGetter
		keeps  bool
	}{
		{"alert readable", alertsOf{alert}, true},
		{"alert unreadable", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp, err := spool.Open(spool.Options{Root: t.TempDir(), Backend: "local:x", Workspace: "default", Redactor: red, Alerts: tc.alerts})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sp.Put("", h()); err != nil {
				t.Fatal(err)
			}
			pending, err := sp.Pending()
			if err != nil {
				t.Fatal(err)
			}
			got := pending[hid]
			if got == nil {
				t.Fatal("the spooled history is missing")
			}
			if strings.Contains(got.Title, "198.51.100.9") {
				t.Fatalf("title %q keeps a value the alert does not hold", got.Title)
			}
			if tc.keeps && got.Title != direct.Title {
				t.Fatalf("spooled title %q, direct save %q", got.Title, direct.Title)
			}
			if !tc.keeps && strings.Contains(got.Title, "203.0.113.7") {
				t.Fatalf("title %q keeps the alert's value although the alert could not be read", got.Title)
			}
		})
	}
}
