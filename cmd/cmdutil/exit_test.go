package cmdutil_test

import (
	"errors"
	"testing"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/pkg/store"
)

func TestMessageSaysItOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{cmdutil.UsageErrorf("usage: /export FILE.md or /export FILE.json"), "usage: /export FILE.md or /export FILE.json"},
		{lookup.AlertNotFound("nope"), `no alert "nope"`},
		{goerr.Wrap(store.ErrInvalid, "bad cursor"), "bad cursor"},
		{goerr.Wrap(errors.New("connection refused"), "failed to list"), "failed to list: connection refused"},
		// what a server answered is shown terminal-safe
		{goerr.Wrap(errors.New("bad \x1b]0;title\x07request \u202egnp.exe\x1b[2J"), "failed"), "failed: bad request gnp.exe"},
	}
	for _, tc := range tests {
		if got := cmdutil.Message(tc.err); got != tc.want {
			t.Errorf("Message = %q, want %q", got, tc.want)
		}
	}
}
