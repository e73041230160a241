package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ergochat/readline"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/lineedit"
	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/spinner"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

const chatHelp = `Type a question and press Enter. Commands:
  /help            this help
  /title NEW       rename this conversation
  /history         this alert's conversations
  /new             start a new conversation about the same alert
  /usage           tokens used by this conversation
  /compress        summarise the older turns now (they stay in the history)
  /retry           send the last question again (after a failure)
  /export FILE     write the conversation to FILE (.md or .json)
  /exit            leave (Ctrl-D works too)
Multi-line input: a line with just """ starts and ends a block; a line ending in \ continues.
Ctrl-C stops an answer in flight; at the prompt it clears the line.
`

// interactiveChat is the state of one terminal chat.
type interactiveChat struct {
	g          *globalOptions
	ios        *IOStreams
	store      store.Store
	sess       *session.Session
	newSession func(*model.History) (*session.Session, error)
	opts       *chatOptions
	ed         *lineedit.Editor
	rl         *readline.Instance // ed's, for the y/N question of samechat.go
	// pending is a question whose answer failed, for /retry.
	pending string
	// same offers to continue an earlier conversation on the first question (samechat.go).
	same *sameConversation

	mu     sync.Mutex
	cancel context.CancelFunc // of the answer in flight
}

func runInteractive(ctx context.Context, g *globalOptions, s store.Store, sess *session.Session,
	newSession func(*model.History) (*session.Session, error), opts *chatOptions) error {
	ios := g.io
	c := &interactiveChat{g: g, ios: ios, store: s, sess: sess, newSession: newSession, opts: opts}
	ed, err := lineedit.New(lineedit.Config{
		Stdin: ios.In, Stdout: ios.Out, Stderr: ios.ErrOut, Terminal: ios.StdinTTY && ios.StdoutTTY,
		HistoryFile: filepath.Join(g.DataDir, "input_history"), HistoryLimit: 1000,
		OnInterrupt: func() { fmt.Fprintln(ios.ErrOut, "(Ctrl-D or /exit to leave)") },
	})
	if err != nil {
		return err
	}
	defer ed.Close()
	_ = os.Chmod(filepath.Join(g.DataDir, "input_history"), 0o600)
	c.ed, c.rl = ed, ed.Readline()

	c.same = newSameConversation(g, s, sess, newSession, opts, nil)

	// Ctrl-C while an answer streams (the terminal is not in raw mode then) cancels that answer
	// only; the session goes on.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			c.mu.Lock()
			if c.cancel != nil {
				c.cancel()
			}
			c.mu.Unlock()
		}
	}()

	c.banner()
	defer c.farewell()
	for {
		input, err := c.ed.ReadQuestion()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return goerr.Wrap(err, "failed to read input")
		}
		if strings.TrimSpace(input) == "" {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(input), "/") {
			if done := c.command(ctx, strings.TrimSpace(input)); done {
				return nil
			}
			continue
		}
		c.ask(ctx, input)
		if ctx.Err() != nil {
			return nil
		}
	}
}

func (c *interactiveChat) banner() {
	a := c.sess.Alert()
	title := a.Title
	if title == "" {
		title = string(a.ID)
	}
	fmt.Fprintf(c.ios.ErrOut, "alertchat: %s\n", termsafe.Line(title))
	if h := c.sess.History(); len(h.Contents) > 0 {
		fmt.Fprintf(c.ios.ErrOut, "Resuming %q (%s), %d messages.\n", termsafe.Line(h.Title), h.ID, h.MessageCount)
	}
	fmt.Fprintln(c.ios.ErrOut, "Ask about the alert. /help for commands, /exit or Ctrl-D to leave.")
}

func (c *interactiveChat) farewell() {
	h := c.sess.History()
	if len(h.Contents) == 0 {
		return
	}
	fmt.Fprintf(c.ios.ErrOut, "\nResume with: alertchat chat -a %s --history %s\n", h.AlertID, h.ID)
}

// ask sends a question and prints the streamed answer. A failed question is kept for /retry.
func (c *interactiveChat) ask(ctx context.Context, question string) {
	if c.same != nil {
		c.offerSame(ctx, question)
	}
	turnCtx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
		cancel()
	}()

	aw := newAnswerWriter(c.ios, c.opts.Raw)
	spin := startLabelledSpinner(c.ios, spinner.AskingGemini)
	aw.beforeFirstWrite = spin.Stop
	turn, err := c.sess.Send(turnCtx, question, aw.Write)
	spin.Stop()
	if errors.Is(err, context.Canceled) {
		aw.Interrupt()
	} else {
		aw.Close()
	}
	switch {
	case errors.Is(err, context.Canceled):
		if turn == nil {
			c.pending = question
			fmt.Fprintln(c.ios.ErrOut, "(cancelled; /retry sends it again)")
		} else {
			c.pending = ""
			fmt.Fprintln(c.ios.ErrOut, "(cancelled; the partial answer was kept)")
		}
	case err != nil && turn == nil:
		c.pending = question
		fmt.Fprintf(c.ios.ErrOut, "Error: %v\n(your question is kept: /retry sends it again)\n", describeModelError(err))
	case err != nil:
		c.pending = ""
		fmt.Fprintf(c.ios.ErrOut, "Error: %v\n(the partial answer was kept)\n", describeModelError(err))
	default:
		c.pending = ""
	}
	if turn != nil && turn.SaveErr != nil {
		fmt.Fprintf(c.ios.ErrOut, "Warning: not saved yet (%v); it stays in this session and is saved with the next turn.\n", turn.SaveErr)
	}
	reportSave(c.ios.ErrOut, turn, c.sess.History())
}

// command runs a slash command; it reports whether the chat should end.
func (c *interactiveChat) command(ctx context.Context, line string) bool {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	out := c.ios.ErrOut
	switch name {
	case "/exit", "/quit":
		return true
	case "/help":
		fmt.Fprint(out, chatHelp)
	case "/title":
		if arg == "" {
			fmt.Fprintf(out, "Title: %s\nUsage: /title NEW TITLE\n", termsafe.Line(c.sess.History().Title))
			break
		}
		if err := c.sess.SetTitle(ctx, arg); err != nil {
			fmt.Fprintf(out, "Error: %v\n", err)
			break
		}
		fmt.Fprintf(out, "Title set: %s\n", c.sess.History().Title)
	case "/history":
		c.listHistories(ctx)
	case "/new":
		sess, err := c.newSession(nil)
		if err != nil {
			fmt.Fprintf(out, "Error: %v\n", err)
			break
		}
		c.farewell()
		c.sess, c.pending, c.same = sess, "", nil
		fmt.Fprintln(out, "New conversation about the same alert.")
	case "/usage":
		h := c.sess.History()
		fmt.Fprintf(out, "Tokens: %d in, %d out (%d total) over %d messages.\n",
			h.Usage.InputTokens, h.Usage.OutputTokens, h.Usage.InputTokens+h.Usage.OutputTokens, h.MessageCount)
	case "/compress":
		c.compress(ctx)
	case "/retry":
		if c.pending == "" {
			fmt.Fprintln(out, "Nothing to retry.")
			break
		}
		c.ask(ctx, c.pending)
	case "/export":
		if err := c.export(arg); err != nil {
			fmt.Fprintf(out, "Error: %v\n", err)
		}
	default:
		fmt.Fprintf(out, "Unknown command %s; /help lists them.\n", name)
	}
	return false
}

func (c *interactiveChat) listHistories(ctx context.Context) {
	out := c.ios.ErrOut
	page, err := c.store.ListHistories(ctx, store.HistoryQuery{AlertID: c.sess.Alert().ID, Limit: 20})
	if err != nil {
		fmt.Fprintf(out, "Error: %v\n", err)
		return
	}
	if len(page.Histories) == 0 {
		fmt.Fprintln(out, "No saved conversations about this alert yet.")
		return
	}
	t := newTable(out, true, "ID", "TITLE", "UPDATED", "MSGS")
	for _, h := range page.Histories {
		mark := ""
		if h.ID == c.sess.History().ID {
			mark = " *"
		}
		t.row(string(h.ID)+mark, h.Title, relativeTime(store.Now(), h.UpdatedAt), fmt.Sprint(h.MessageCount))
	}
	t.flush()
	fmt.Fprintln(out, "Resume one with: alertchat chat --history ID")
}

func (c *interactiveChat) export(path string) error {
	if path == "" {
		return usageErrorf("usage: /export FILE.md or /export FILE.json")
	}
	h := c.sess.History()
	var write func(io.Writer) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		write = func(w io.Writer) error { return renderTranscriptMarkdown(w, h) }
	case ".json":
		write = func(w io.Writer) error { return printJSON(w, newTranscriptJSON(h)) }
	default:
		return usageErrorf("export to a .md or .json file")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return goerr.Wrap(err, "cannot write "+path)
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return goerr.Wrap(err, "cannot write "+path)
	}
	fmt.Fprintf(c.ios.ErrOut, "Exported to %s\n", path)
	return nil
}
