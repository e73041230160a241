package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

// hookedAnswers answers "answer to: Q" and runs the hook registered for Q first, so a test can
// break the storage backend while a chat process is between loading and saving its history.
type hookedAnswers struct {
	mu    sync.Mutex
	hooks map[string]func()
}

func (h *hookedAnswers) on(question string, fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hooks == nil {
		h.hooks = map[string]func(){}
	}
	h.hooks[question] = fn
}

func (h *hookedAnswers) option() geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		q := r.LastUserText()
		if r.Kind == geminitest.KindStreamGenerateContent {
			h.mu.Lock()
			fn := h.hooks[q]
			delete(h.hooks, q)
			h.mu.Unlock()
			if fn != nil {
				fn()
			}
		}
		return geminitest.Reply{Text: "answer to: " + q}
	})
}

// withEnv replaces (or adds) environment variables of the CLI.
func (c *cli) withEnv(kv ...string) {
	for _, e := range kv {
		name := e[:strings.IndexByte(e, '=')+1]
		out := c.env[:0]
		for _, old := range c.env {
			if !strings.HasPrefix(old, name) {
				out = append(out, old)
			}
		}
		c.env = append(out, e)
	}
}

type shownHistory struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	ParentID  string `json:"parent_id"`
	ForkPoint int    `json:"fork_point"`
	Pending   bool   `json:"pending"`
	Contents  []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
}

func (h shownHistory) texts() []string {
	var out []string
	for _, c := range h.Contents {
		out = append(out, c.Parts[0].Text)
	}
	return out
}

// turns are the contents as "role: text", every text part of each joined.
func (h shownHistory) turns() []string {
	var out []string
	for _, c := range h.Contents {
		var b strings.Builder
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
		out = append(out, c.Role+": "+b.String())
	}
	return out
}

func (c *cli) show(id string) shownHistory {
	c.t.Helper()
	var h shownHistory
	out := c.mustRun("", "history", "show", id, "-o", "json")
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		c.t.Fatalf("history show -o json: %v: %s", err, out)
	}
	return h
}

func (c *cli) list() []shownHistory {
	c.t.Helper()
	var hs []shownHistory
	out := c.mustRun("", "history", "list", "-o", "json", "--limit", "1000")
	if err := json.Unmarshal([]byte(out), &hs); err != nil {
		c.t.Fatalf("history list -o json: %v: %s", err, out)
	}
	return hs
}

func spoolFiles(t *testing.T, dataDir string) []string {
	t.Helper()
	var files []string
	_ = filepath.Walk(filepath.Join(dataDir, "spool"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// TestChatAcrossStorageOutage runs the binary on the cloud store with Cloud Storage behind a
// fault proxy: turns answered while the transcript service answers 503, refuses connections
// or hangs are kept locally, listed as pending, and uploaded once it is back.
func TestChatAcrossStorageOutage(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	proxy := testenv.NewFaultProxy(t, cloud.StorageURL)
	hooks := &hookedAnswers{}
	c := newCLI(t, hooks.option())
	c.env = append(c.env, cloud.Env()...)
	c.withEnv(testenv.EnvStorageHost+"="+proxy.URL(), "ALERTCHAT_NO_TITLE_GENERATION=true")
	dataDir := filepath.Join(c.dataDir, "data")

	alertID := c.addAlert("guardduty.json")
	first := c.askJSON("", "-a", alertID, "-q", "q1")

	// The transcript service fails (503) after the process loaded the history.
	hooks.on("q2", func() { proxy.Set(testenv.Unavailable) })
	r := c.run("", "chat", "--history", first.HistoryID, "-q", "q2", "-o", "json")
	var got chatOut
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.HistoryID != first.HistoryID || got.Answer != "answer to: q2" {
		t.Fatalf("chat in a 503 outage: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "kept locally") {
		t.Fatalf("the user was not told the turn is kept locally: %q", r.stderr)
	}
	if proxy.Faulted() == 0 {
		t.Fatal("the proxy failed no request")
	}
	if files := spoolFiles(t, dataDir); len(files) != 1 {
		t.Fatalf("spool files %v, want 1", files)
	}

	// Listing needs only Firestore: it works, warns that the flush failed, and marks the
	// history pending.
	r = c.run("", "history", "list", "-o", "json")
	var listed []shownHistory
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &listed) != nil || len(listed) != 1 || !listed[0].Pending {
		t.Fatalf("history list in the outage: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "could not be uploaded yet") {
		t.Fatalf("no warning about the failed upload: %q", r.stderr)
	}
	if strings.Contains(r.stdout, `"pending": false`) {
		t.Fatal("pending is printed when not set")
	}

	// Connections refused, then a hanging server: new conversations are kept too.
	proxy.Set(testenv.Refuse)
	refused := c.askJSON("", "-a", alertID, "-q", "q3")
	proxy.Set(testenv.Hang)
	start := time.Now()
	hung := c.askJSON("", "-a", alertID, "-q", "q4")
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("a chat against a hanging store took %v", d)
	}
	if files := spoolFiles(t, dataDir); len(files) != 3 {
		t.Fatalf("spool files %v, want 3", files)
	}

	// Back: sync uploads everything, and the stored transcripts hold every turn.
	proxy.Set(testenv.Pass)
	r = c.run("", "history", "sync")
	if r.code != 0 || strings.Count(r.stderr, "Uploaded turns kept locally") != 3 {
		t.Fatalf("history sync: exit %d, stderr %q", r.code, r.stderr)
	}
	if files := spoolFiles(t, dataDir); len(files) != 0 {
		t.Fatalf("spool files left after sync: %v", files)
	}
	if got := c.show(first.HistoryID).texts(); fmt.Sprint(got) != "[q1 answer to: q1 q2 answer to: q2]" {
		t.Fatalf("stored transcript %q", got)
	}
	for _, h := range []chatOut{refused, hung} {
		if got := c.show(h.HistoryID).texts(); len(got) != 2 || got[1] != "answer to: "+got[0] {
			t.Fatalf("history created in the outage: %q", got)
		}
	}
	for _, h := range c.list() {
		if h.Pending {
			t.Fatalf("%s still pending after sync", h.ID)
		}
	}
	if r := c.run("", "history", "sync"); r.code != 0 || !strings.Contains(r.stderr, "Nothing to upload") {
		t.Fatalf("second sync: exit %d, %q", r.code, r.stderr)
	}
}

// TestChatAcrossFirestoreOutage stops a dedicated Firestore emulator while a chat process is
// between loading and saving: paused (a hung server), then killed (connections refused).
func TestChatAcrossFirestoreOutage(t *testing.T) {
	t.Parallel()
	emu := testenv.StartFirestoreEmulator(t)
	_, gcsURL, _ := testenv.GCSBucket(t)
	cloud := &testenv.Cloud{Project: testenv.NewProjectID(), Database: "(default)", Bucket: testenv.Bucket,
		FirestoreHost: emu.Host, StorageURL: gcsURL}
	hooks := &hookedAnswers{}
	c := newCLI(t, hooks.option())
	c.env = append(c.env, cloud.Env()...)
	c.withEnv("ALERTCHAT_NO_TITLE_GENERATION=true")

	alertID := c.addAlert("guardduty.json")
	first := c.askJSON("", "-a", alertID, "-q", "q1")

	hooks.on("q2", emu.Pause)
	r := c.run("", "chat", "--history", first.HistoryID, "-q", "q2")
	emu.Resume()
	if r.code != 0 || r.stdout != "answer to: q2\n" || !strings.Contains(r.stderr, "kept locally") {
		t.Fatalf("chat with Firestore hung: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// The save the pause held may still land when the server resumes: then sync finds the turn
	// already stored and says so, which is as right as uploading it.
	r = c.run("", "history", "sync")
	if r.code != 0 || !strings.Contains(r.stderr, "Uploaded turns kept locally to history "+first.HistoryID) &&
		!strings.Contains(r.stderr, "History "+first.HistoryID+" already held the turns kept locally") {
		t.Fatalf("sync after the pause: exit %d, %q", r.code, r.stderr)
	}
	if got := c.show(first.HistoryID).texts(); len(got) != 4 {
		t.Fatalf("stored %q", got)
	}

	hooks.on("q3", emu.Stop)
	r = c.run("", "chat", "--history", first.HistoryID, "-q", "q3")
	if r.code != 0 || !strings.Contains(r.stderr, "kept locally") {
		t.Fatalf("chat with Firestore stopped: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A restarted emulator is empty: the history's metadata is gone, so the turns kept
	// locally come back as a new history forked from it, holding the whole conversation.
	emu.Restart()
	r = c.run("", "history", "sync")
	if r.code != 0 || !strings.Contains(r.stderr, "a fork of it") {
		t.Fatalf("sync after the restart: exit %d, %q", r.code, r.stderr)
	}
	hs := c.list()
	if len(hs) != 1 || hs[0].ParentID != first.HistoryID {
		t.Fatalf("histories after the restart: %+v", hs)
	}
	if got := c.show(hs[0].ID).texts(); fmt.Sprint(got) != "[q1 answer to: q1 q2 answer to: q2 q3 answer to: q3]" {
		t.Fatalf("fork holds %q", got)
	}
}

// TestConcurrentWritersFork runs N processes, each continuing the same history M times
// (one-shot chat --history ID -q), on the local and on the cloud store. The first round is
// held until every process has loaded the history, so N-1 of them must fork. In the end the
// original and its forks hold every turn exactly once: the original's contents plus each
// fork's contents after its fork point.
func TestConcurrentWritersFork(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"local", "cloud"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			const n, m = 3, 3
			var mu sync.Mutex
			arrived := 0
			release := make(chan struct{})
			c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
				q := r.LastUserText()
				if strings.HasSuffix(q, "-0") {
					mu.Lock()
					if arrived++; arrived == n {
						close(release)
					}
					mu.Unlock()
					select {
					case <-release:
					case <-time.After(30 * time.Second):
					}
				}
				return geminitest.Reply{Text: "answer to: " + q}
			}))
			c.withEnv("ALERTCHAT_NO_TITLE_GENERATION=true")
			if backend == "cloud" {
				c.env = append(c.env, testenv.CloudEnv(t).Env()...)
			}
			alertID := c.addAlert("guardduty.json")
			orig := c.askJSON("", "-a", alertID, "-q", "q0").HistoryID

			var wg sync.WaitGroup
			errs := make(chan error, n*m)
			forks := make(chan string, n*m)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range m {
						q := fmt.Sprintf("p%d-%d", i, j)
						r := c.run("", "chat", "--history", orig, "-q", q, "-o", "json")
						var got chatOut
						if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
							errs <- fmt.Errorf("%s: exit %d, %q, %q", q, r.code, r.stdout, r.stderr)
							return
						}
						if got.HistoryID != orig {
							if !strings.Contains(r.stderr, "saved to a new history "+got.HistoryID) {
								errs <- fmt.Errorf("%s forked to %s without saying so: %q", q, got.HistoryID, r.stderr)
							}
							forks <- got.HistoryID
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			close(forks)
			for err := range errs {
				t.Error(err)
			}
			if t.Failed() {
				return
			}
			if len(forks) < n-1 {
				t.Fatalf("%d forks; the held first round should make at least %d", len(forks), n-1)
			}

			// Every turn exactly once, by the fork-point rule.
			seen := map[string]int{}
			byID := map[string]shownHistory{}
			for _, h := range c.list() {
				byID[h.ID] = h
			}
			for id, h := range byID {
				full := c.show(id)
				own := full.texts()
				if h.ParentID != "" {
					if byID[h.ParentID].ID == "" {
						t.Fatalf("fork %s of a missing parent %s", id, h.ParentID)
					}
					own = own[h.ForkPoint:]
				} else if id != orig {
					t.Fatalf("unexpected history %s", id)
				}
				for _, s := range own {
					seen[s]++
				}
			}
			var want []string
			want = append(want, "q0", "answer to: q0")
			for i := range n {
				for j := range m {
					q := fmt.Sprintf("p%d-%d", i, j)
					want = append(want, q, "answer to: "+q)
				}
			}
			sort.Strings(want)
			var got []string
			for s, k := range seen {
				for range k {
					got = append(got, s)
				}
			}
			sort.Strings(got)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("turns over the original and %d forks:\n got %q\nwant %q", len(byID)-1, got, want)
			}
			t.Logf("%s: %d processes x %d turns: %d histories (%d forks)", backend, n, m, len(byID), len(byID)-1)
		})
	}
}

// TestOneShotsRememberTheOutage: a one-shot that finds the transcript store down spends its
// --store-timeout and keeps the turn locally; it records the outage in the data dir, so the
// next one-shot keeps its turn at once instead of waiting again. history sync tries anyway.
func TestOneShotsRememberTheOutage(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	proxy := testenv.NewFaultProxy(t, cloud.StorageURL)
	c := newCLI(t, titleAnswer("T"))
	c.env = append(c.env, cloud.Env()...)
	c.withEnv(testenv.EnvStorageHost+"="+proxy.URL(), "ALERTCHAT_NO_TITLE_GENERATION=true")
	dataDir := filepath.Join(c.dataDir, "data")
	alertID := c.addAlert("guardduty.json")
	const timeout = 6 * time.Second
	c.withEnv("ALERTCHAT_STORE_TIMEOUT=" + timeout.String())

	proxy.Set(testenv.Hang)
	var took [3]time.Duration
	var requests [3]int64
	for i := range took {
		before := proxy.Requests()
		start := time.Now()
		r := c.run("", "chat", "-a", alertID, "-q", fmt.Sprintf("q%d", i), "-o", "json")
		took[i], requests[i] = time.Since(start), proxy.Requests()-before
		if r.code != 0 || !strings.Contains(r.stderr, "kept locally") {
			t.Fatalf("one-shot %d in the outage: exit %d, stderr %q", i, r.code, r.stderr)
		}
	}
	t.Logf("one-shots against a hanging transcript store (--store-timeout %v): %v, then %v and %v", timeout, took[0], took[1], took[2])
	// The first one-shot tries the store until its timeout; the next ones know of the outage
	// and do not ask the transcript store at all.
	if requests[0] == 0 || requests[1] != 0 || requests[2] != 0 {
		t.Fatalf("requests to the transcript store per one-shot: %v; want some, then none", requests)
	}
	if files := spoolFiles(t, dataDir); len(files) != 3 {
		t.Fatalf("spool files %v, want 3", files)
	}
	proxy.Set(testenv.Pass)
	if r := c.run("", "history", "sync"); r.code != 0 || strings.Count(r.stderr, "Uploaded turns kept locally") != 3 {
		t.Fatalf("history sync right after the outage: exit %d, stderr %q", r.code, r.stderr)
	}
	start := time.Now()
	if got := c.askJSON("", "-a", alertID, "-q", "back"); got.HistoryID == "" || len(spoolFiles(t, dataDir)) != 0 {
		t.Fatalf("after the outage: %+v, spool %v", got, spoolFiles(t, dataDir))
	}
	t.Logf("a one-shot after sync closed the breaker: %v", time.Since(start))
}

// TestKnowledgeAddAcrossFirestoreOutage adds a team note while Firestore is down: exit 1 with
// the store's message and no entry, half or whole; once it is back (and the breaker lets writes
// through again) the same command writes the entry once, complete, redacted and searchable.
func TestKnowledgeAddAcrossFirestoreOutage(t *testing.T) {
	t.Parallel()
	emu := testenv.StartFirestoreEmulator(t)
	_, gcsURL, _ := testenv.GCSBucket(t)
	cloud := &testenv.Cloud{Project: testenv.NewProjectID(), Database: "(default)", Bucket: testenv.Bucket,
		FirestoreHost: emu.Host, StorageURL: gcsURL}
	c := newCLI(t)
	c.env = append(c.env, cloud.Env()...)
	c.withEnv("ALERTCHAT_STORE_TIMEOUT=3s", "ALERTCHAT_MAX_ATTEMPTS=2")
	const note = "198.51.100.23 is our external scanner (Qualys), Sundays"
	add := []string{"knowledge", "add", note, "--indicator", "scanner.example.net", "--alert-type", "Recon:EC2/PortProbeUnprotectedPort"}

	emu.Stop()
	r := c.run("", add...)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "Error:") {
		t.Fatalf("knowledge add with Firestore down: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "198.51.100.23") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("the failure printed the note or a stack: %q", r.stderr)
	}

	emu.Restart()
	var entries []map[string]any
	if err := json.Unmarshal([]byte(c.mustRun("", "knowledge", "list", "--all", "-o", "json")), &entries); err != nil || len(entries) != 0 {
		t.Fatalf("after the failed add: %v, %v", entries, err)
	}
	// The failed attempts opened the store's write breaker, which other processes remember: a
	// retry before its cool-down is refused unattempted (and writes nothing), one after it writes.
	var id string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(2 * time.Second) {
		r := c.run("", add...)
		if r.code == 0 {
			id = strings.TrimSpace(r.stdout)
			break
		}
		if r.code != 1 || !strings.Contains(r.stderr, "not attempted") || time.Now().After(deadline) {
			t.Fatalf("retry: exit %d, %q", r.code, r.stderr)
		}
	}
	if err := json.Unmarshal([]byte(c.mustRun("", "knowledge", "list", "--all", "-o", "json")), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("after the retry: %v, %v", entries, err)
	}
	got := entries[0]
	if got["id"] != id || got["text"] == nil || fmt.Sprint(got["alert_types"]) != "[Recon:EC2/PortProbeUnprotectedPort]" {
		t.Errorf("the entry written on retry: %v", got)
	}
	if out := c.mustRun("", "knowledge", "search", "198.51.100.23", "-o", "json"); !strings.Contains(out, id) {
		t.Errorf("the raw address does not find the entry: %s", out)
	}
}
