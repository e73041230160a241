package chat

import (
	"context"
	"io"
	"testing"

	"github.com/urfave/cli/v3"
)

func TestContinueFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args           []string
		continued      bool
		auto, parseErr bool
	}{
		{[]string{"x"}, false, false, false},
		{[]string{"x", "--continue"}, true, false, false},
		{[]string{"x", "-c"}, true, false, false},
		{[]string{"x", "--continue=true"}, true, false, false},
		{[]string{"x", "--continue=auto"}, false, true, false},
		{[]string{"x", "-c=auto"}, false, true, false},
		{[]string{"x", "--continue=false"}, false, false, false},
		{[]string{"x", "--continue=sometimes"}, false, false, true},
		// A bool flag takes no separate value: "auto" stays an argument.
		{[]string{"x", "--continue", "auto"}, true, false, false},
	}
	for _, tc := range tests {
		opts := &Options{}
		var args []string
		cmd := &cli.Command{Name: "x", Writer: io.Discard, ErrWriter: io.Discard, Flags: []cli.Flag{continueFlag(opts)}, Action: func(_ context.Context, c *cli.Command) error {
			args = c.Args().Slice()
			return nil
		}}
		err := cmd.Run(context.Background(), tc.args)
		if (err != nil) != tc.parseErr || opts.Continue != tc.continued || opts.AutoContinue != tc.auto {
			t.Errorf("%v: continue %v, auto %v, err %v", tc.args[1:], opts.Continue, opts.AutoContinue, err)
		}
		if len(tc.args) == 3 && tc.args[2] == "auto" && (len(args) != 1 || args[0] != "auto") {
			t.Errorf("%v: args %v", tc.args[1:], args)
		}
	}
}
