package cmdutil

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"
)

func TestRemoteOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    RemoteOptions
		refused string // what Check says, "" when it accepts
	}{
		{"none", nil, RemoteOptions{PollInterval: 30 * time.Second}, ""},
		{"remote", []string{"--remote"}, RemoteOptions{Enabled: true, PollInterval: 30 * time.Second}, ""},
		{"all", []string{"--remote", "--resubmit", "--no-wait", "--poll-interval", "1s"}, RemoteOptions{Enabled: true, Resubmit: true, NoWait: true, PollInterval: time.Second}, ""},
		{"no wait alone", []string{"--no-wait"}, RemoteOptions{NoWait: true, PollInterval: 30 * time.Second}, "--resubmit and --no-wait go with --remote"},
		{"resubmit alone", []string{"--resubmit"}, RemoteOptions{Resubmit: true, PollInterval: 30 * time.Second}, "--resubmit and --no-wait go with --remote"},
		{"too short", []string{"--remote", "--poll-interval", "999ms"}, RemoteOptions{Enabled: true, PollInterval: 999 * time.Millisecond}, "invalid --poll-interval 999ms: at least 1s"},
		// Without --remote the pause is unused: not refused.
		{"short, not remote", []string{"--poll-interval", "10ms"}, RemoteOptions{PollInterval: 10 * time.Millisecond}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got RemoteOptions
			cmd := &cli.Command{Name: "x", Flags: got.Flags(30*time.Second, RemoteUsage{}), Action: func(context.Context, *cli.Command) error { return nil }}
			if err := cmd.Run(context.Background(), append([]string{"x"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("options %+v, want %+v", got, tc.want)
			}
			err := got.Check()
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("Check() = %v, want accepted", err)
			case tc.refused != "" && (!IsUsage(err) || Message(err) != tc.refused):
				t.Fatalf("Check() = %v, want the usage error %q", err, tc.refused)
			}
		})
	}
}

// The flags say what each command gives them, in help's order.
func TestRemoteFlagsUsage(t *testing.T) {
	t.Parallel()
	var o RemoteOptions
	flags := o.Flags(time.Minute, RemoteUsage{Remote: "r", Resubmit: "s", NoWait: "w", PollInterval: "p"})
	var got []string
	for _, f := range flags {
		got = append(got, f.Names()[0]+"="+f.(cli.DocGenerationFlag).GetUsage())
	}
	if want := "remote=r resubmit=s no-wait=w poll-interval=p"; strings.Join(got, " ") != want {
		t.Fatalf("flags %q, want %q", got, want)
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tty  bool
		keep bool
		show []string
		want string // stderr after Stop
	}{
		{"terminal, kept", true, true, []string{"one", "two"}, "\rone\x1b[K\rtwo\x1b[K\r\x1b[Ktwo\n"},
		{"terminal, erased", true, false, []string{"one", "two"}, "\rone\x1b[K\rtwo\x1b[K\r\x1b[K"},
		{"terminal, nothing shown", true, true, nil, ""},
		{"pipe, kept", false, true, []string{"one", "two"}, ""},
		{"pipe, erased", false, false, []string{"one"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, _, stderr := TestIO("", tc.tty)
			p := NewProgressLine(ios, tc.keep)
			for _, s := range tc.show {
				p.Show(s)
			}
			p.Stop()
			if stderr.String() != tc.want {
				t.Fatalf("stderr %q, want %q", stderr.String(), tc.want)
			}
		})
	}
}
