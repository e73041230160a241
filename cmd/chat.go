package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/briandowns/spinner"
	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// maxQuestionSize bounds a question read from stdin.
const maxQuestionSize = 1 << 20

type chatOptions struct {
	AlertID   string
	File      string
	Query     string
	HistoryID string
	Continue  bool
	Title     string
	Raw       bool
	Output    string
	NoTitles  bool
	// AutoContinue is --continue=auto; JudgeModel is --judge-model (see samechat.go).
	AutoContinue bool
	JudgeModel   string
}

func chatCommand(g *globalOptions) *cli.Command {
	opts := &chatOptions{}
	return &cli.Command{
		Name:  "chat",
		Usage: "chat with Gemini about an alert (interactive on a terminal, one question with -q or piped stdin)",
		UsageText: "alertchat chat -a ALERT_ID                 interactive\n" +
			"alertchat chat -f alert.json               add the alert, then chat\n" +
			"alertchat chat -a ALERT_ID -q TEXT [-o json] one question\n" +
			"echo TEXT | alertchat chat -a ALERT_ID     the whole stdin is the question\n" +
			"alertchat chat --history ID | -a ALERT_ID --continue   resume",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "alert", Aliases: []string{"a"}, Usage: "alert ID", Sources: envVar("ALERT"), Destination: &opts.AlertID},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "add this alert JSON file (- for stdin) and chat about it", Destination: &opts.File},
			&cli.StringFlag{Name: "query", Aliases: []string{"q"}, Usage: "ask one question, print the answer and exit", Destination: &opts.Query},
			&cli.StringFlag{Name: "history", Usage: "resume this history (full ID or a unique prefix of 8+ characters)", Destination: &opts.HistoryID},
			continueFlag(opts),
			judgeModelFlag(opts),
			&cli.StringFlag{Name: "title", Usage: "title the conversation yourself (never replaced by a generated one)", Destination: &opts.Title},
			&cli.BoolFlag{Name: "raw", Usage: "print the answer as raw text, without Markdown rendering", Sources: envVar("RAW"), Destination: &opts.Raw},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text or json (one question only)", Destination: &opts.Output},
			&cli.BoolFlag{Name: "no-title-generation", Usage: "title new conversations from their first line instead of asking Gemini", Sources: envVar("NO_TITLE_GENERATION"), Destination: &opts.NoTitles},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("unexpected arguments %v (quote the question: -q \"...\")", c.Args().Slice())
			}
			return runChat(ctx, g, opts)
		},
	}
}

func (o *chatOptions) validate(interactive bool) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	switch {
	case o.AlertID != "" && o.File != "":
		return usageErrorf("use -a ALERT_ID or -f FILE, not both")
	case o.AlertID == "" && o.File == "" && o.HistoryID == "":
		return usageErrorf("say which alert: -a ALERT_ID, -f FILE, or --history ID")
	case o.HistoryID != "" && (o.Continue || o.AutoContinue):
		return usageErrorf("use --history or --continue, not both")
	case o.File == "-" && o.Query == "":
		return usageErrorf("with -f - the alert comes from stdin, so the question must be given with -q")
	case interactive && o.Output == "json":
		return usageErrorf("-o json needs one question: -q TEXT or a question on stdin")
	}
	return nil
}

func runChat(ctx context.Context, g *globalOptions, opts *chatOptions) error {
	ios := g.io
	interactive := opts.Query == "" && ios.StdinTTY && opts.File != "-"
	if err := opts.validate(interactive); err != nil {
		return err
	}
	if err := g.checkContextBudget(); err != nil {
		return err
	}
	// Read a piped question before anything else can fail, so bad input is reported first.
	question := opts.Query
	if !interactive && question == "" {
		data, err := readInput(ios, "-", maxQuestionSize)
		if err != nil {
			return err
		}
		question = string(data)
	}
	g.warnIfRedactionOff()
	return g.withStore(ctx, func(s store.Store) error {
		a, h, err := openConversation(ctx, ios, s, opts)
		if err != nil {
			return err
		}
		client, err := newGeminiClient(ctx)
		if err != nil {
			return err
		}
		llmClient := g.retrying(client.Models, nil, nil)
		sessOpts, err := g.sessionOptions(llmClient, s, !opts.NoTitles)
		if err != nil {
			return err
		}
		newSession := func(h *model.History) (*session.Session, error) { return session.New(sessOpts, a, h) }
		sess, err := newSession(h)
		if err != nil {
			return err
		}
		if opts.Title != "" {
			if err := sess.SetTitle(ctx, opts.Title); err != nil {
				return usageErrorf("invalid --title: %v", err)
			}
		}
		if interactive {
			return runInteractive(ctx, g, s, sess, newSession, opts)
		}
		sess = g.offerSameConversation(ctx, s, sess, newSession, opts, llmClient, question)
		return runOneShot(ctx, ios, sess, question, opts)
	})
}

// sessionOptions are the settings of every session the command line starts (chat and batch):
// the retrying model client, the store, redaction, the spool, the context budget.
func (g *globalOptions) sessionOptions(llm session.LLM, s store.Store, titles bool) (session.Options, error) {
	red, err := g.redactor()
	if err != nil {
		return session.Options{}, err
	}
	return session.Options{
		LLM: llm, Store: s, Redactor: red, Model: g.Model, Titles: titles,
		Spool: g.sessionSpool(), MaxContextTokens: g.MaxContextTokens, Logger: g.logger,
	}, nil
}

// openConversation finds the alert and, when resuming, the history.
func openConversation(ctx context.Context, ios *IOStreams, s store.Store, opts *chatOptions) (*model.Alert, *model.History, error) {
	alertID := model.AlertID(opts.AlertID)
	if opts.File != "" {
		id, err := addAlert(ctx, ios, s, opts.File)
		if err != nil {
			return nil, nil, err
		}
		alertID = id
	}
	var h *model.History
	switch {
	case opts.HistoryID != "":
		id, err := resolveHistoryID(ctx, s, opts.HistoryID)
		if err != nil {
			return nil, nil, err
		}
		if h, err = s.GetHistory(ctx, id); err != nil {
			return nil, nil, goerr.Wrap(err, "cannot resume history "+string(id), goerr.V("history_id", id))
		}
		if alertID == "" {
			alertID = h.AlertID
		} else if h.AlertID != alertID {
			return nil, nil, usageErrorf("history %s is about alert %s, not %s", h.ID, h.AlertID, alertID)
		}
	case opts.Continue:
		page, err := s.ListHistories(ctx, store.HistoryQuery{AlertID: alertID, Limit: 1})
		if err != nil {
			return nil, nil, goerr.Wrap(err, "failed to find the latest history", goerr.V("alert_id", alertID))
		}
		if len(page.Histories) == 0 {
			fmt.Fprintf(ios.ErrOut, "No earlier conversation about alert %s: starting a new one.\n", alertID)
			break
		}
		if h, err = s.GetHistory(ctx, page.Histories[0].ID); err != nil {
			return nil, nil, goerr.Wrap(err, "cannot resume the latest history", goerr.V("history_id", page.Histories[0].ID))
		}
	}
	a, err := s.GetAlert(ctx, alertID)
	if err != nil {
		return nil, nil, goerr.Wrap(err, "no alert "+string(alertID), goerr.V("alert_id", alertID))
	}
	return a, h, nil
}

type chatJSON struct {
	HistoryID model.HistoryID `json:"history_id"`
	AlertID   model.AlertID   `json:"alert_id"`
	Title     string          `json:"title"`
	Answer    string          `json:"answer"`
	Usage     model.Usage     `json:"usage"`
}

func runOneShot(ctx context.Context, ios *IOStreams, sess *session.Session, question string, opts *chatOptions) error {
	if isBlank(question) {
		return usageErrorf("the question is empty")
	}
	jsonOut := opts.Output == "json"
	var aw *answerWriter
	onText := func(string) {}
	spin := startSpinner(ios)
	if !jsonOut {
		aw = newAnswerWriter(ios, opts.Raw)
		aw.beforeFirstWrite = spin.stop
		onText = aw.Write
	}
	turn, err := sess.Send(ctx, question, onText)
	spin.stop()
	if aw != nil {
		aw.Close()
	}
	if err != nil && turn == nil {
		return describeModelError(err)
	}
	h := sess.History()
	if jsonOut {
		if perr := printJSON(ios.Out, chatJSON{HistoryID: h.ID, AlertID: h.AlertID, Title: h.Title, Answer: turn.Answer, Usage: turn.Usage}); perr != nil {
			return perr
		}
	}
	reportSave(ios.ErrOut, turn, h)
	if err != nil {
		return describeModelError(err) // the partial answer was printed and saved
	}
	if turn.SaveErr != nil {
		return goerr.Wrap(turn.SaveErr, "the answer was printed but not saved")
	}
	if !jsonOut && ios.StderrTTY && !turn.Spooled {
		fmt.Fprintf(ios.ErrOut, "\nSaved as %s. Continue with: alertchat chat --history %s\n", h.ID, h.ID)
	}
	return nil
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// describeModelError turns the SDK's errors into messages a user can act on.
func describeModelError(err error) error {
	var apiErr genai.APIError
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, session.ErrContextTooLong):
		return goerr.Wrap(err, "the request is too long for Gemini even with the earlier conversation summarised: lower --max-context-tokens, or start a new conversation")
	case errors.Is(err, session.ErrBlocked):
		return goerr.Wrap(err, "Gemini declined to answer (blocked by its safety filters); rephrase the question")
	case errors.Is(err, llm.ErrCallTimeout):
		return goerr.Wrap(err, "Gemini did not answer in time"+triedNote(err)+": try again, or raise --call-timeout")
	case errors.As(err, &apiErr):
		switch apiErr.Code {
		case 400:
			if apiErr.Status == "INVALID_ARGUMENT" && (strings.Contains(apiErr.Message, "API key") || strings.Contains(apiErr.Message, "API_KEY")) {
				return goerr.Wrap(err, "Gemini rejected the API key: check GEMINI_API_KEY")
			}
			return goerr.Wrap(err, "Gemini rejected the request: "+apiErr.Message)
		case 401, 403:
			return goerr.Wrap(err, "Gemini refused access: check the API key or the Vertex AI permissions")
		case 404:
			return goerr.Wrap(err, "Gemini does not know this model: check --model")
		case 429:
			return goerr.Wrap(err, "Gemini quota or rate limit reached"+triedNote(err)+": wait, or check the project's quota")
		}
		if apiErr.Code >= 500 {
			return goerr.Wrap(err, "Gemini is unavailable right now"+triedNote(err)+": try again")
		}
	}
	return goerr.Wrap(err, "Gemini request failed")
}

// chatSpinner shows activity on stderr until the first token, for a person only.
type chatSpinner struct{ s *spinner.Spinner }

func startSpinner(ios *IOStreams) *chatSpinner {
	if !ios.StderrTTY || ios.NoColor {
		return &chatSpinner{}
	}
	s := spinner.New(spinner.CharSets[14], 100*time.Millisecond, spinner.WithWriter(ios.ErrOut))
	s.Suffix = " thinking..."
	s.Start()
	return &chatSpinner{s: s}
}

func (c *chatSpinner) stop() {
	if c.s != nil {
		c.s.Stop()
		c.s = nil
	}
}
