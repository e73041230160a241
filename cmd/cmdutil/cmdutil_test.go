package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/termtest"
)

func TestConfirmDelete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		tty     bool
		yes     bool
		answer  string
		ok      bool
		code    int
		stderrs []string
	}{
		{"-y", false, true, "", true, ExitOK, nil},
		{"no terminal, no -y: refused", false, false, "y\n", false, ExitUsage, nil},
		{"terminal, yes", true, false, "yes\n", true, ExitOK, []string{"Delete history x? [y/N] "}},
		{"terminal, no", true, false, "n\n", false, ExitOK, []string{"Aborted."}},
		{"terminal, EOF", true, false, "", false, ExitOK, []string{"Aborted."}},
	}
	for _, tc := range tests {
		ios, _, stderr := TestIO(tc.answer, tc.tty)
		ok, err := ConfirmDelete(ios, tc.yes, "Delete history x?")
		if code := map[bool]int{true: ExitUsage, false: ExitOK}[errors.Is(err, ErrUsage)]; ok != tc.ok || code != tc.code || err != nil && code == ExitOK {
			t.Errorf("%s: %v, %v", tc.name, ok, err)
		}
		for _, s := range tc.stderrs {
			if !strings.Contains(stderr.String(), s) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, stderr.String(), s)
			}
		}
	}
}

// TestSpinnerOnlyForAPerson: the indicator is drawn on a terminal, and not when stdout is not
// a terminal or NO_COLOR is set; a progress line needs stderr to be a terminal only.
func TestSpinnerOnlyForAPerson(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                   string
		stdout, stderr         bool
		noColor                bool
		wantSpin, wantProgress bool
	}{
		{"terminal", true, true, false, true, true},
		{"stdout piped", false, true, false, false, true},
		{"stderr piped", true, false, false, false, false},
		{"NO_COLOR", true, true, true, false, true},
	} {
		term := termtest.Open(t, 80, 5)
		ios := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: term.TTY,
			StdinTTY: true, StdoutTTY: tc.stdout, StderrTTY: tc.stderr, NoColor: tc.noColor}
		err := ios.RunWithProgress("asking Gemini…", func() error {
			if tc.wantSpin {
				term.WaitText(t, "asking Gemini…")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ios.ShowProgressLine("3/5 done")
		term.Flush(t)
		if got := term.Visible(); tc.wantProgress != (got == "3/5 done") {
			t.Errorf("%s: screen %q, want the progress line %v", tc.name, got, tc.wantProgress)
		}
		ios.StopProgressIndicator()
		term.Flush(t)
		if drew := strings.Contains(term.Raw(), "asking Gemini"); drew != tc.wantSpin {
			t.Errorf("%s: drew %v, want %v (%q)", tc.name, drew, tc.wantSpin, term.Raw())
		}
		if term.Visible() != "" || term.CursorHidden() {
			t.Errorf("%s: after Stop:\n%s", tc.name, term.Dump())
		}
	}
}

// on with plain placeholders and says so; it never stops and never writes a raw value.

func TestCleanCellIsTerminalSafe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain title", "plain title"},
		{"two\nlines\tand tab", "two lines and tab"},
		{"invoice\u202efdp.exe", "invoicefdp.exe"},
		{"\u2067isolate\u2069 \u200fmark", "isolate mark"},
		{"\x1b]0;owned\x07title \x1b[31mred\x1b[0m", "title red"},
		{"line\u2028sep", "linesep"},
	} {
		if got := CleanCell(tc.in); got != tc.want {
			t.Errorf("CleanCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The parser's complaint about a variable's value is a usage error naming the variable; other
// errors keep their class.
func TestEnvValueError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err   error
		usage bool
		msg   string
	}{
		{errors.New(`could not parse "abc" as int value from environment variable "ALERTCHAT_MAX_ATTEMPTS" for flag max-attempts: strconv.ParseInt: parsing "abc": invalid syntax`),
			true, `invalid ALERTCHAT_MAX_ATTEMPTS="abc" (--max-attempts): strconv.ParseInt: parsing "abc": invalid syntax`},
		{errors.New(`could not parse "bo\"gus" as *chat.continueValue value from environment variable "ALERTCHAT_CONTINUE" for flag continue: invalid value`),
			true, `invalid ALERTCHAT_CONTINUE="bo\"gus" (--continue): invalid value`},
		{errors.New("disk full"), false, "disk full"},
		{UsageErrorf("already one"), true, "already one"},
	}
	for _, tc := range tests {
		got := EnvValueError(tc.err)
		if IsUsage(got) != tc.usage || !strings.HasPrefix(got.Error(), tc.msg) {
			t.Errorf("EnvValueError(%q) = %q (usage %v), want %q (usage %v)", tc.err, got, IsUsage(got), tc.msg, tc.usage)
		}
	}
	if EnvValueError(nil) != nil {
		t.Error("nil became an error")
	}
}

// JSON printed for a person escapes what a terminal would act on or not show (C1 controls,
// bidirectional overrides, zero-width and tag characters); it stays the same JSON value.
func TestPrintJSONEscapesHiddenCharacters(t *testing.T) {
	t.Parallel()
	v := map[string]any{"title\u009b": "safe\u202eexe.txt\u200b\U000E0041\u0085\u009b2J\x7f日本語 ok"}
	var b bytes.Buffer
	if err := PrintJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, r := range out {
		if r == '\u202e' || r == '\u200b' || r == '\U000E0041' || r == '\u0085' || r == '\u009b' || r == 0x7f {
			t.Fatalf("%+q printed raw in %q", r, out)
		}
	}
	if !strings.Contains(out, `safe\u202eexe.txt\u200b\udb40\udc41\u0085\u009b2J\u007f日本語 ok`) || !strings.Contains(out, "{\n  \"title\\u009b\": ") {
		t.Fatalf("printed %s", out)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["title\u009b"] != v["title\u009b"] {
		t.Fatalf("not the same value: %v %v", back, err)
	}
}
