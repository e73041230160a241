package lineedit_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/alertchat/alertchat/pkg/lineedit"
)

func TestPasteReader(t *testing.T) {
	t.Parallel()
	const nl = string(lineedit.PasteNewline)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"typed text passes", "hello\r", "hello\r"},
		{"cursor report passes", "\x1b[12;1Rab\x1b[A\r", "\x1b[12;1Rab\x1b[A\r"},
		{"paste is one line", "\x1b[200~a\r\nb\r\nc\r\nd\x1b[201~\r", "a" + nl + "b" + nl + "c" + nl + "d\r"},
		{"LF and CR breaks", "\x1b[200~a\nb\rc\x1b[201~", "a" + nl + "b" + nl + "c"},
		{"blank lines kept", "\x1b[200~a\n\nb\x1b[201~", "a" + nl + nl + "b"},
		{"trailing break dropped", "\x1b[200~line\r\n\x1b[201~", "line"},
		{"controls in a paste dropped", "\x1b[200~a\x03b\x04\x1b[31mc\x1b[0m\x7f\td\x1b[201~", "abc\td"},
		{"typed around a paste", "x\x1b[200~p\nq\x1b[201~y\r", "xp" + nl + "qy\r"},
		{"unicode in a paste", "\x1b[200~日本\n語\x1b[201~", "日本" + nl + "語"},
		{"lone escape passes", "\x1bb", "\x1bb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, split := range []struct {
				name string
				r    func(io.Reader) io.Reader
			}{
				{"whole", func(r io.Reader) io.Reader { return r }},
				{"byte by byte", iotest.OneByteReader},
			} {
				got, err := io.ReadAll(lineedit.NewPasteReader(split.r(strings.NewReader(tc.in)), "t-"))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tc.want {
					t.Errorf("%s: got %q, want %q", split.name, got, tc.want)
				}
			}
		})
	}
}

func TestBigPasteIsHeld(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("log line %02d", i))
	}
	paste := strings.Join(lines, "\n")
	pr := lineedit.NewPasteReader(strings.NewReader("why? \x1b[200~"+strings.ReplaceAll(paste, "\n", "\r")+"\r\x1b[201~ and?\r"), "t-")
	got, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	const placeholder = "[pasted text #t-1: 40 lines, 479 bytes]"
	if string(got) != "why? "+placeholder+" and?\r" {
		t.Fatalf("line %q", got)
	}
	if d := pr.Decode("why? " + placeholder + " and?"); d != "why? "+paste+" and?" {
		t.Fatalf("Decode = %q", d)
	}
	if d := pr.Decode("[pasted text #t-1: 40 lines]␤x"); d != "[pasted text #t-1: 40 lines]\nx" {
		t.Fatalf("an edited placeholder changed: %q", d)
	}
}

func TestPasteLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		paste      string
		bytes, max int
		held       bool
	}{
		{"small", "a\nb", 0, 0, false},
		{"too many lines", strings.Repeat("x\n", 13), 0, 0, true},
		{"too many bytes", strings.Repeat("x", 1025), 0, 0, true},
		{"raised limits", strings.Repeat("x\n", 13), 4096, 100, false},
	} {
		pr := lineedit.NewPasteReader(strings.NewReader("\x1b[200~"+tc.paste+"\x1b[201~"), "t-")
		pr.InlineBytes, pr.InlineLines = tc.bytes, tc.max
		got, _ := io.ReadAll(pr)
		if held := strings.HasPrefix(string(got), "[pasted text #t-1:"); held != tc.held {
			t.Errorf("%s: held = %v (%q)", tc.name, held, got)
		}
		if d := pr.Decode(string(got)); d != strings.TrimRight(tc.paste, "\n") {
			t.Errorf("%s: decoded %q", tc.name, d)
		}
	}
}

// newEditor is an editor reading in from a pipe (readline's non-terminal mode).
func newEditor(t *testing.T, in string, onInterrupt func()) (*lineedit.Editor, *bytes.Buffer) {
	t.Helper()
	return newEditorWith(t, lineedit.Config{Stdin: strings.NewReader(in), OnInterrupt: onInterrupt})
}

// newEditorWith is newEditor with a config (its output set here).
func newEditorWith(t *testing.T, cfg lineedit.Config) (*lineedit.Editor, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	cfg.Stdout, cfg.Stderr = &out, &out
	e, err := lineedit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, &out
}

// Tests that build an Editor do not run in parallel: readline keeps the terminal's size
// handler in a package variable.

func TestReadQuestion(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"lines", "one\ntwo\n", []string{"one", "two"}},
		{"paste of 4 lines is one question", "\x1b[200~l1\r\nl2\r\nl3\r\nl4\x1b[201~\nnext\n", []string{"l1\nl2\nl3\nl4", "next"}},
		{"triple quote block", "\"\"\"\nmulti\nline\n\"\"\"\n", []string{"multi\nline"}},
		{"backslash continues", "first \\\nsecond\n", []string{"first \nsecond"}},
		{"paste in a block", "\"\"\"\n\x1b[200~a\nb\x1b[201~\n\"\"\"\n", []string{"a\nb"}},
		{"big paste is one question", "\x1b[200~" + strings.Repeat("line\r", 100) + "\x1b[201~\n", []string{strings.TrimSuffix(strings.Repeat("line\n", 100), "\n")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEditor(t, tc.in, nil)
			var got []string
			for {
				q, err := e.ReadQuestion()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, q)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("questions %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadLineAsksForPasteOnTerminalOnly(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var out bytes.Buffer
		e, err := lineedit.New(lineedit.Config{Stdin: strings.NewReader("q\n"), Stdout: &out, Stderr: &out, Terminal: terminal})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.ReadLine("> "); err != nil {
			t.Fatal(err)
		}
		_ = e.Close()
		s := out.String()
		on, off := strings.Index(s, lineedit.EnablePaste), strings.Index(s, lineedit.DisablePaste)
		if terminal && (on < 0 || off < on) {
			t.Fatalf("terminal: paste mode not turned on then off: %q", s)
		}
		if !terminal && (on >= 0 || off >= 0) {
			t.Fatalf("not a terminal: paste mode asked for: %q", s)
		}
	}
}

// Editors started at once (the chat's tests run several interactive chats in parallel) do not
// race on readline's package-level resize handler (go test -race).
func TestNewAtOnce(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			e, err := lineedit.New(lineedit.Config{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out})
			if err != nil {
				t.Error(err)
				return
			}
			_ = e.Close()
		}()
	}
	wg.Wait()
}

// memHistory is a lasting history in memory.
type memHistory struct{ entries, added []string }

func (h *memHistory) Entries() []string { return h.entries }
func (h *memHistory) Add(q string) error {
	h.added = append(h.added, q)
	return nil
}

func TestQuestionsGoToTheLastingHistoryWhole(t *testing.T) {
	h := &memHistory{}
	in := "one\n\"\"\"\n-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n\"\"\"\nfirst \\\nsecond\n\x1b[200~p1\r\np2\x1b[201~\n\"\"\"\nabandoned\n\x03"
	e, _ := newEditorWith(t, lineedit.Config{Stdin: strings.NewReader(in), History: h})
	for {
		if _, err := e.ReadQuestion(); err != nil {
			break
		}
	}
	want := []string{"one", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", "first \nsecond", "p1\np2"}
	if strings.Join(h.added, "|") != strings.Join(want, "|") {
		t.Fatalf("lasting history got %q, want %q", h.added, want)
	}
}

func TestAQuestionOfSeveralLinesIsRecalledWhole(t *testing.T) {
	big := strings.TrimSuffix(strings.Repeat("a long log line\n", 40), "\n")
	h := &memHistory{entries: []string{"older", big, "why\nthis?"}}
	// Up recalls the last question, Up Up the one before (a big one, behind a placeholder)
	e, _ := newEditorWith(t, lineedit.Config{Stdin: strings.NewReader("\x1b[A\n\x1b[A\x1b[A\n"), History: h})
	for _, want := range []string{"why\nthis?", big} {
		q, err := e.ReadQuestion()
		if err != nil {
			t.Fatal(err)
		}
		if q != want {
			t.Fatalf("recalled %q, want %q", q, want)
		}
	}
}
