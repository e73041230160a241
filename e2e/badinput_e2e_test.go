package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/alert"
)

// TestBadAlertFilesThroughTheBinary: malformed, huge, binary and non-UTF-8 alert files are
// refused with a clear message and exit 2, and nothing is stored.
func TestBadAlertFilesThroughTheBinary(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	huge := append([]byte(`{"pad":"`), bytes.Repeat([]byte("a"), alert.MaxSize)...)
	huge = append(huge, `"}`...)
	for _, tc := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"malformed.json", []byte(`{"Title": "x",`), "not valid JSON"},
		{"trailing.json", []byte(`{"a":1} trailing`), `line 1: not JSON ("trailing")`},
		{"scalar.json", []byte(`"just a string"`), "JSON object or array"},
		{"empty.json", []byte(" \n"), "empty"},
		{"huge.json", huge, "larger than the limit of 8388608 bytes"},
		{"image.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"), "not UTF-8"},
		{"latin1.json", []byte("{\"name\": \"caf\xe9\"}"), "not UTF-8"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"alert", "add", "-f", p}, {"chat", "-f", p, "-q", "x"}} {
			r := c.run("", args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tc.name, args[0], r.code, r.stdout, r.stderr, tc.msg)
			}
		}
		// The same through stdin.
		r := c.run(string(tc.data), "alert", "add", "-f", "-")
		if r.code != 2 || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%s on stdin: exit %d, stderr %q", tc.name, r.code, r.stderr)
		}
	}
	if out := c.mustRun("", "alert", "list", "-o", "json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("bad alerts were stored: %s", out)
	}
	if out := c.mustRun("", "history", "list", "-o", "json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("histories were stored: %s", out)
	}
	if len(c.answerRequests()) != 0 {
		t.Fatal("Gemini was asked about a bad alert")
	}
}

// TestControlCharactersInModelOutput: what the model says cannot drive the terminal, live or
// from a stored transcript; JSON output escapes it.
func TestControlCharactersInModelOutput(t *testing.T) {
	t.Parallel()
	evil := "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m bell\x07 nul\x00 back\bspace \u202eevil\u202c c1\u009b done"
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Title\x1b[5m blink"}
		}
		return geminitest.Reply{Chunks: []string{evil[:20], evil[20:]}}
	}))
	alertID := c.addAlert("guardduty.json")
	clean := func(what, s string) {
		t.Helper()
		for _, bad := range []string{"\x1b", "\x07", "\x00", "\b", "\u202e", "\u009b"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s contains %q: %q", what, bad, s)
			}
		}
		if !strings.Contains(s, "red") || !strings.Contains(s, "done") {
			t.Errorf("%s lost the text: %q", what, s)
		}
	}
	r := c.run("", "chat", "-a", alertID, "-q", "hi")
	if r.code != 0 {
		t.Fatalf("chat: exit %d, %q", r.code, r.stderr)
	}
	clean("live answer", r.stdout)
	id := c.list()[0].ID
	for _, format := range []string{"text", "md"} {
		clean("history show -o "+format, c.mustRun("", "history", "show", id, "-o", format))
	}
	list := c.run("", "history", "list")
	if strings.ContainsAny(list.stdout, "\x1b\x07") {
		t.Errorf("history list shows control characters: %q", list.stdout)
	}
	// JSON keeps the text, escaped.
	var h shownHistory
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "show", id, "-o", "json")), &h); err != nil || h.Contents[1].Parts[0].Text != evil {
		t.Fatalf("json lost the stored text: %v", err)
	}
}

// TestCorruptTranscriptAndUnknownIDs: a corrupt transcript object is an error naming the
// history (exit 1) and is not overwritten; unknown IDs and IDs of another workspace are "not
// found" (exit 3).
func TestCorruptTranscriptAndUnknownIDs(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	alertID := c.addAlert("guardduty.json")
	id := c.askJSON("", "-a", alertID, "-q", "q1", "--no-title-generation").HistoryID
	obj := filepath.Join(c.dataDir, "data", "histories", id+".json")
	garbage := []byte(`[{"role":"user","parts":[{"text":"q1"}]},{"role":"mod`)
	if err := os.WriteFile(obj, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"chat", "--history", id, "-q", "q2"},
		{"history", "show", id},
		{"history", "show", id, "-o", "json"},
	} {
		r := c.run("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, id) || !strings.Contains(r.stderr, "corrupt") || r.stdout != "" {
			t.Errorf("%v on a corrupt transcript: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if data, _ := os.ReadFile(obj); !bytes.Equal(data, garbage) {
		t.Fatal("the corrupt transcript was overwritten")
	}
	if len(c.answerRequests()) != 1 {
		t.Fatal("Gemini was asked about a history that could not be loaded")
	}
	r := c.run("", "history", "fsck")
	if r.code != 1 || !strings.Contains(r.stdout, id) {
		t.Fatalf("fsck: exit %d, %q", r.code, r.stdout)
	}

	unknown := "0b8f2c62-2b2b-4bb0-9d4e-3f0e8c1a7d55"
	other := []string{"--workspace", "other"}
	for _, args := range [][]string{
		{"history", "show", unknown},
		{"chat", "--history", unknown, "-q", "x"},
		{"history", "rm", "-y", unknown},
		{"history", "rename", unknown, "t"},
		{"alert", "show", unknown},
		{"chat", "-a", unknown, "-q", "x"},
		append(other, "history", "show", id),
		append(other, "chat", "--history", id, "-q", "x"),
		append(other, "history", "rm", "-y", id),
		append(other, "history", "rename", id, "t"),
		append(other, "alert", "show", alertID),
		append(other, "history", "show", id[:8]),
	} {
		r := c.run("", args...)
		if r.code != 3 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 3", args, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(obj); err != nil {
		t.Fatal("another workspace removed the history")
	}
}

// TestDiskFullLocalStore runs the local store on a tiny tmpfs: a turn too big for it is a
// clear "disk full" error, exit 1, nothing half-written, and the previous transcript intact.
func TestDiskFullLocalStore(t *testing.T) {
	t.Parallel()
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
		// A skip is silent in CI's output: under CI this disk-full check must run, so a machine
		// that cannot mount says so as a failure.
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot mount a tmpfs for the disk-full test (%v: %s); CI runs it as root", err, out)
		}
		t.Skipf("cannot mount a tmpfs here (%v: %s); pkg/store/local's TestDiskFullKeepsPreviousTranscript injects the error instead", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	// The store's own files (its schema and indexes, an alert, the write-ahead log) take about
	// half the disk; the big answer cannot fit in what is left.
	big := strings.Repeat("A long answer that fills the disk. ", 45_000) // about 1.5 MB
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if strings.Contains(r.LastUserText(), "big") {
			return geminitest.Reply{Chunks: []string{big}}
		}
		return geminitest.Reply{Text: "answer to: " + r.LastUserText()}
	}))
	c.withEnv("ALERTCHAT_DATA_DIR="+mnt, "ALERTCHAT_NO_TITLE_GENERATION=true")
	alertID := c.addAlert("guardduty.json")
	id := c.askJSON("", "-a", alertID, "-q", "small").HistoryID
	before, err := os.ReadFile(filepath.Join(mnt, "histories", id+".json"))
	if err != nil {
		t.Fatal(err)
	}

	r := c.run("", "chat", "--history", id, "-q", "big one", "-o", "json")
	if r.code != 1 || !strings.Contains(r.stderr, "disk full") || !strings.Contains(r.stderr, "no space left") {
		t.Fatalf("chat on a full disk: exit %d, stderr %q", r.code, r.stderr)
	}
	after, _ := os.ReadFile(filepath.Join(mnt, "histories", id+".json"))
	if !bytes.Equal(before, after) {
		t.Fatal("the previous transcript changed")
	}
	entries, _ := os.ReadDir(filepath.Join(mnt, "histories"))
	if len(entries) != 1 {
		t.Fatalf("files left in histories/: %v", entries)
	}
	if got := c.show(id).texts(); len(got) != 2 {
		t.Fatalf("stored transcript after the failure: %q", got)
	}
	if r := c.run("", "history", "fsck"); r.code != 0 {
		t.Fatalf("fsck after the failure: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}
