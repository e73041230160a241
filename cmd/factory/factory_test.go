package factory

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
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
		{"0f1e2d3c-a", "0f1e2d3c-aaaa", cmdutil.ExitOK},
		{"0f1e2d3c-bbbb", "0f1e2d3c-bbbb", cmdutil.ExitOK},
		{"0f1e2d3c", "", cmdutil.ExitUsage}, // ambiguous
		{"0f1e", "", cmdutil.ExitUsage},     // too short to stand for another ID
		{"alert-1", "alert-1", cmdutil.ExitOK},
		{"ffffffff", "", cmdutil.ExitNotFound},
		{"", "", cmdutil.ExitUsage},
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
		{cmdutil.UsageErrorf("usage: /export FILE.md or /export FILE.json"), "usage: /export FILE.md or /export FILE.json"},
		{AlertNotFound("nope"), `no alert "nope"`},
		{goerr.Wrap(store.ErrInvalid, "bad cursor"), "bad cursor"},
		{goerr.Wrap(errors.New("connection refused"), "failed to list"), "failed to list: connection refused"},
		// what a server answered is shown terminal-safe
		{goerr.Wrap(errors.New("bad \x1b]0;title\x07request \u202egnp.exe\x1b[2J"), "failed"), "failed: bad request gnp.exe"},
	}
	for _, tc := range tests {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("Message = %q, want %q", got, tc.want)
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
func TestKeyedRedactorWithoutAKey(t *testing.T) {
	t.Parallel()
	var warn bytes.Buffer
	k := NewKeyedRedactor(redact.AllTypes(), hangingKeys{}, "", &warn, slog.New(slog.DiscardHandler), 50*time.Millisecond)
	out, _ := k.RedactString("mail jane@example.com")
	if out != "mail [REDACTED_EMAIL]" || !strings.Contains(warn.String(), "token key is unavailable") {
		t.Fatalf("redacted %q, warned %q", out, warn.String())
	}
}
