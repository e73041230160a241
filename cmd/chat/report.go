package chat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/handoff"
	"github.com/alertchat/alertchat/pkg/samechat"
)

// report is /report FILE: the case report of the live conversation, as history report writes
// it, but of what the screen showed: values the store holds as tokens are raw here, so the file
// is the user's alone (0600) and the chat says so. A file that exists is replaced only on the
// user's yes; where nobody can be asked it is left alone.
func (c *interactiveChat) report(path string) error {
	if path == "" {
		return cmdutil.UsageErrorf("usage: /report FILE")
	}
	if _, err := os.Lstat(path); err == nil {
		if !c.ios.CanPrompt() {
			return cmdutil.UsageErrorf("%s exists; not overwritten, as nobody can be asked", path)
		}
		var line string
		err := c.ios.Prompt(func() (err error) {
			c.rl.SetPrompt(fmt.Sprintf("%s exists. Overwrite it? [y/N] ", path))
			defer c.rl.SetPrompt("> ")
			line, err = c.rl.ReadLine()
			return err
		})
		if err != nil || !samechat.Yes(line) {
			fmt.Fprintln(c.ios.ErrOut, "Not written.")
			return nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return goerr.Wrap(err, "cannot write "+path, goerr.V("path", path))
	}
	// The stored history's metadata (questions, verdict) with the live transcript: the indices
	// agree, as the store's transcript is the live one redacted content by content.
	h := *c.sess.History()
	h.Contents = c.sess.Contents()
	r := handoff.Build(handoff.Input{History: &h, Alert: c.sess.Alert(), Workspace: c.cfg.Workspace})
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return goerr.Wrap(err, "cannot write "+path, goerr.V("path", path))
	}
	// A file that existed keeps its mode through O_TRUNC: the report's raw values make it 0600.
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return goerr.Wrap(err, "cannot write "+path, goerr.V("path", path))
	}
	if err := r.Markdown(f); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return goerr.Wrap(err, "cannot write "+path, goerr.V("path", path))
	}
	fmt.Fprintf(c.ios.ErrOut, "Report written to %s (mode 0600). It holds what the screen showed, raw values included, not the redacted store.\n", path)
	return nil
}
