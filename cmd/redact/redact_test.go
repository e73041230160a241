package redact

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/syncbuf"
)

func factoryWith(ios *cmdutil.IOStreams, redactTypes string) *cmdutil.Factory {
	return &cmdutil.Factory{IO: ios, Config: func() cmdutil.Config { return cmdutil.Config{Redact: redactTypes} }}
}

func TestNewCmdRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		wantJSONL bool
		wantUsage bool
	}{
		{"plain", nil, false, false},
		{"jsonl", []string{"--jsonl"}, true, false},
		{"an argument", []string{"notes.txt"}, false, true},
		{"unknown flag", []string{"--yaml"}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _ := cmdutil.TestIO("", false)
			var got *Options
			cmd := NewCmdRedact(factoryWith(ios, "all"), func(_ context.Context, o *Options) error { got = o; return nil })
			cmd.OnUsageError = cmdutil.MarkUsage
			err := cmd.Run(context.Background(), append([]string{"redact"}, tc.args...))
			if tc.wantUsage {
				if !cmdutil.IsUsage(err) {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil || got == nil || got.JSONL != tc.wantJSONL {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, types, in, want string
		jsonl, usage          bool
	}{
		{name: "text", types: "all", in: "mail jane@example.com\n", want: "mail [REDACTED_EMAIL]\n"},
		{name: "only ip", types: "ip", in: "jane@example.com 10.1.2.3", want: "jane@example.com [REDACTED_IP]"},
		{name: "jsonl", types: "all", in: `{"id":"1","text":"jane@example.com"}` + "\n", want: `[REDACTED_EMAIL]`, jsonl: true},
		{name: "bad jsonl", types: "all", in: "not json\n", jsonl: true, usage: true},
		{name: "bad types", types: "nonsense", in: "x", usage: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, stdout, _ := cmdutil.TestIO(tc.in, false)
			err := run(&Options{IO: ios, Config: factoryWith(ios, tc.types).Config, JSONL: tc.jsonl})
			if tc.usage {
				if !cmdutil.IsUsage(err) {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil || !strings.Contains(stdout.String(), tc.want) {
				t.Fatalf("err %v, stdout %q, want %q", err, stdout.String(), tc.want)
			}
		})
	}
}

// The redact command links neither storage nor the model: it starts fast and its binary
// surface stays small. Their constructors are in cmd/factory, and what needs a store or the
// model in cmd/report and cmd/sessionutil, for that.
func TestRedactCommandDeps(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, heavy := range []string{"cloud.google.com/go/firestore", "cloud.google.com/go/storage", "modernc.org/sqlite", "google.golang.org/genai"} {
		for _, d := range deps {
			if d == heavy {
				t.Errorf("cmd/redact depends on %s", heavy)
			}
		}
	}
}

// TestRunStreams: redacted text comes out while the input is still open, so memory does not
// hold the whole input; what comes out is redacted.
func TestRunStreams(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	out := &syncbuf.Buffer{}
	ios := &cmdutil.IOStreams{In: pr, Out: out, ErrOut: io.Discard}
	done := make(chan error, 1)
	go func() { done <- run(&Options{IO: ios, Config: factoryWith(ios, "all").Config}) }()
	line := "2025-11-26T10:00:00Z sshd: Failed password for deploy from 203.0.113.7 port 22; mail jane@example.com\n"
	go func() {
		// 4 MB, then the input stays open until the output has started
		for range (4 << 20) / len(line) {
			if _, err := io.WriteString(pw, line); err != nil {
				return
			}
		}
	}()
	eventually.True(t, 60*time.Second, "redacted output before the input ends", func() bool { return len(out.String()) > 1<<20 }, nil)
	_ = pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "203.0.113.7") || strings.Contains(got, "jane@") || !strings.Contains(got, "from [REDACTED_IP] port 22; mail [REDACTED_EMAIL]\n") {
		t.Fatalf("output %.300q", got)
	}
}

// TestRunTerminal: on a terminal the redacted text is shown as text (a log's escape sequences
// cannot clear the screen or set the title); piped, it is passed on byte for byte.
func TestRunTerminal(t *testing.T) {
	t.Parallel()
	in := "\x1b]0;owned\x07login jane@example.com\x1b[2J\x1b[H from 203.0.113.7 \u202eevil\n"
	for _, tc := range []struct {
		name string
		tty  bool
		want string
	}{
		{"terminal", true, "login [REDACTED_EMAIL] from [REDACTED_IP] evil\n"},
		{"pipe", false, "\x1b]0;owned\x07login [REDACTED_EMAIL]\x1b[2J\x1b[H from [REDACTED_IP] \u202eevil\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, stdout, _ := cmdutil.TestIO(in, tc.tty)
			if err := run(&Options{IO: ios, Config: factoryWith(ios, "all").Config}); err != nil {
				t.Fatal(err)
			}
			if stdout.String() != tc.want {
				t.Fatalf("stdout %q, want %q", stdout.String(), tc.want)
			}
		})
	}
}
