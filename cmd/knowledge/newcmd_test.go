package knowledge

import (
	"context"
	"slices"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
)

func testFactory() *factory.Factory {
	ios, _, _ := cmdutil.TestIO("", false)
	return &factory.Factory{Factory: &cmdutil.Factory{IO: ios}}
}

func parse(cmd *cli.Command, args []string) error {
	cmd.OnUsageError = cmdutil.MarkUsage
	return cmd.Run(context.Background(), append([]string{cmd.Name}, args...))
}

// Bad input is refused before the store is opened (runF is never reached), as exit 2.
func TestNewCmdAdd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"text and flags", []string{"198.51.100.23 is", "our scanner", "--indicator", "i-0abc", "--alert-type", "Recon:EC2/PortProbeUnprotectedPort", "--expires", "never"}, true},
		{"no text", nil, false},
		{"blank text", []string{"  "}, false},
		{"bad expiry", []string{"x", "--expires", "tomorrow"}, false},
		{"bad alert type", []string{"x", "--alert-type", "a\tb"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *AddOptions
			err := parse(NewCmdAdd(testFactory(), func(_ context.Context, o *AddOptions) error { got = o; return nil }), tc.args)
			if !tc.ok {
				if got != nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage {
					t.Fatalf("err %v (exit %d), reached the store: %v", err, cmdutil.ExitCode(err), got != nil)
				}
				return
			}
			if err != nil || got.Text != "198.51.100.23 is our scanner" || !slices.Equal(got.Indicators, []string{"i-0abc"}) || got.Expires != "never" {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}

func TestNewCmdEditAndRm(t *testing.T) {
	t.Parallel()
	var edit *EditOptions
	if err := parse(NewCmdEdit(testFactory(), func(_ context.Context, o *EditOptions) error { edit = o; return nil }), []string{"1a2b3c4d", "--expires", "90d"}); err != nil || !edit.setExpires || edit.setText {
		t.Fatalf("edit: %v %+v", err, edit)
	}
	for _, args := range [][]string{{"1a2b3c4d"}, {"1a2b3c4d", "--text", ""}, {"1a2b3c4d", "--expires", ""}, {"--text", "x"}} {
		if err := parse(NewCmdEdit(testFactory(), func(context.Context, *EditOptions) error { return nil }), args); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("edit %q: %v, want exit 2", args, err)
		}
	}
	var rm *RmOptions
	if err := parse(NewCmdRm(testFactory(), func(_ context.Context, o *RmOptions) error { rm = o; return nil }), []string{"a", "b"}); err != nil || !slices.Equal(rm.IDs, []string{"a", "b"}) {
		t.Fatalf("rm: %v %+v", err, rm)
	}
	if err := parse(NewCmdRm(testFactory(), nil), nil); !cmdutil.IsUsage(err) {
		t.Errorf("rm without IDs: %v", err)
	}
}
