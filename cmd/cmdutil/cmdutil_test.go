package cmdutil

import (
	"errors"
	"strings"
	"testing"
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

// TestSpinnerOnlyForAPerson: no spinner when stdout is not a terminal or NO_COLOR is set.
func TestSpinnerOnlyForAPerson(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		stdout, stderr    bool
		noColor, wantDraw bool
	}{
		{"terminal", true, true, false, true},
		{"stdout piped", false, true, false, false},
		{"stderr piped", true, false, false, false},
		{"NO_COLOR", true, true, true, false},
	} {
		ios, _, stderr := TestIO("", true)
		ios.StdoutTTY, ios.StderrTTY, ios.NoColor = tc.stdout, tc.stderr, tc.noColor
		sp := StartSpinner(ios, "asking Gemini…")
		sp.Stop()
		if drew := strings.Contains(stderr.String(), "asking Gemini"); drew != tc.wantDraw {
			t.Errorf("%s: drew %v, want %v (%q)", tc.name, drew, tc.wantDraw, stderr.String())
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
