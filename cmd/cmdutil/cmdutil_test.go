package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
)

type alertIDs []record.AlertID

func (a alertIDs) FindAlerts(_ context.Context, prefix string, limit int) ([]record.AlertID, error) {
	var out []record.AlertID
	for _, id := range a {
		if strings.HasPrefix(string(id), prefix) && len(out) < limit {
			out = append(out, id)
		}
	}
	return out, nil
}

func TestResolveAlertID(t *testing.T) {
	t.Parallel()
	ids := alertIDs{"0f1e2d3c-aaaa", "0f1e2d3c-bbbb", "alert-1", "alert-10"}
	tests := []struct {
		arg  string
		want record.AlertID
		code int
	}{
		{"0f1e2d3c-a", "0f1e2d3c-aaaa", ExitOK},
		{"0f1e2d3c-bbbb", "0f1e2d3c-bbbb", ExitOK},
		{"0f1e2d3c", "", ExitUsage}, // ambiguous
		{"0f1e", "", ExitUsage},     // too short to stand for another ID
		{"alert-1", "alert-1", ExitOK},
		{"ffffffff", "", ExitNotFound},
		{"", "", ExitUsage},
	}
	for _, tc := range tests {
		got, err := ResolveAlertID(context.Background(), ids, tc.arg)
		if got != tc.want || ExitCode(err) != tc.code {
			t.Errorf("ResolveAlertID(%q) = %q, %v (exit %d); want %q, exit %d", tc.arg, got, err, ExitCode(err), tc.want, tc.code)
		}
	}
	_, err := ResolveAlertID(context.Background(), ids, "0f1e2d3c")
	if msg := Message(err); !strings.Contains(msg, "0f1e2d3c-aaaa") || !strings.Contains(msg, "0f1e2d3c-bbbb") {
		t.Errorf("an ambiguous prefix does not list the candidates: %q", msg)
	}
}

func TestMessageSaysItOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{UsageErrorf("usage: /export FILE.md or /export FILE.json"), "usage: /export FILE.md or /export FILE.json"},
		{AlertNotFound("nope"), `no alert "nope"`},
		{goerr.Wrap(store.ErrInvalid, "bad cursor"), "bad cursor"},
		{goerr.Wrap(errors.New("connection refused"), "failed to list"), "failed to list: connection refused"},
	}
	for _, tc := range tests {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("Message = %q, want %q", got, tc.want)
		}
	}
}

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
		if ok != tc.ok || ExitCode(err) != tc.code {
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

// hangingKeys is a key store that never answers.
type hangingKeys struct{}

func (hangingKeys) WorkspaceKey(ctx context.Context) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestKeyedRedactorWithoutAKey: when the workspace's key cannot be had in time, redaction goes
// on with plain placeholders and says so; it never stops and never writes a raw value.
func TestKeyedRedactorWithoutAKey(t *testing.T) {
	t.Parallel()
	var warn bytes.Buffer
	k := NewKeyedRedactor(redact.AllTypes(), hangingKeys{}, "", &warn, slog.New(slog.DiscardHandler), 50*time.Millisecond)
	out, _ := k.RedactString("mail jane@example.com")
	if out != "mail [REDACTED_EMAIL]" || !strings.Contains(warn.String(), "token key is unavailable") {
		t.Fatalf("redacted %q, warned %q", out, warn.String())
	}
}
