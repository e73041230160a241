package history

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	alertpkg "github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/statusline"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// ResolveOptions are "history resolve"'s.
type ResolveOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	LLM       func(ctx context.Context, o factory.LLMOptions) (*llm.Client, error)
	Config    func() cmdutil.Config
	// ID is a full history ID or a unique prefix of 8 or more characters.
	ID string
	// Verdict and Note are the conclusion given (--verdict, --note); Suggest asks Gemini for
	// them instead, and Yes records its suggestion where nobody can be asked to confirm it.
	Verdict record.Verdict
	Note    string
	Suggest bool
	Yes     bool
	// Lessons are --lesson: each becomes a team knowledge entry whose source is this history
	// and its verdict.
	Lessons []string
	// drafts are the lessons Gemini drafted with its suggestion: each kept only on a yes (or
	// with Yes).
	drafts []string
	// in reads the answers of every question asked, so none typed ahead is lost between them.
	in *bufio.Reader
}

func (o *ResolveOptions) input() *bufio.Reader {
	if o.in == nil {
		o.in = bufio.NewReader(o.IO.In)
	}
	return o.in
}

// NewCmdResolve is "alertchat history resolve ID --verdict V [--note TEXT]" and
// "alertchat history resolve ID --suggest [-y]".
func NewCmdResolve(f *factory.Factory, runF func(context.Context, *ResolveOptions) error) *cli.Command {
	opts := &ResolveOptions{IO: f.IO, OpenStore: f.OpenStore, LLM: f.LLM, Config: f.Config}
	var verdictArg string
	return &cli.Command{
		Name:  "resolve",
		Usage: "conclude an investigation: record its verdict, who resolved it and when",
		Description: `Records how an investigation ended: its verdict, an optional note (redacted), who resolved it
and when. The next analyst sees it in history list, in chat and in the tools Gemini uses.
--suggest asks Gemini for a verdict and a conclusion from the transcript, with the evidence they
rest on, and records it when you confirm (-y where nothing can be asked). Each --lesson is kept as
a team knowledge entry (its ID printed) whose source is this history and its verdict, and whose
alert type is the history's alert's: later investigations of matching alerts start from it.

Examples:
  alertchat history resolve 6e6f461a --verdict benign --note 'scheduled scan from the vuln scanner'
  alertchat history resolve 6e6f461a --verdict false_positive --lesson '198.51.100.23 is our Qualys scanner, Sundays'
  alertchat history resolve 6e6f461a --suggest

Exit status: 2 for an unknown verdict, or --suggest without a terminal or -y; 3 for an unknown history.`,
		UsageText: "alertchat history resolve ID --verdict " + strings.ReplaceAll(record.VerdictNames(), ", ", "|") + " [--note TEXT]\n" +
			"alertchat history resolve ID --suggest [-y]   (Gemini proposes; you confirm or edit, or -y records it)",
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "verdict", Usage: "how it ended", Destination: &verdictArg}, verdictValues()...),
			&cli.StringFlag{Name: "note", Usage: "the conclusion in a few sentences (redacted like every write)", Destination: &opts.Note},
			&cli.BoolFlag{Name: "suggest", Usage: "ask Gemini for a verdict and a conclusion from the transcript, then confirm or edit them", Destination: &opts.Suggest},
			&cli.StringSliceFlag{Name: "lesson", Usage: "what the team should know next time, kept as a knowledge entry from this history and verdict (repeatable)", Destination: &opts.Lessons},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "with --suggest: record the suggestion without asking (needed where nothing can be asked)", Destination: &opts.Yes},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("history resolve takes exactly one history ID")
			}
			opts.ID = c.Args().First()
			switch {
			case opts.Suggest && (verdictArg != "" || opts.Note != ""):
				return cmdutil.UsageErrorf("use --suggest, or --verdict with --note, not both")
			case opts.Yes && !opts.Suggest:
				return cmdutil.UsageErrorf("-y confirms a --suggest'ed verdict; with --verdict nothing is asked")
			case opts.Suggest && !opts.Yes && !opts.IO.CanPrompt():
				return cmdutil.UsageErrorf("refusing to record Gemini's suggestion unconfirmed: not a terminal, so nothing can be asked; add -y to record it, or give --verdict")
			case !opts.Suggest && verdictArg == "":
				return cmdutil.UsageErrorf("say how it ended: --verdict %s, or --suggest", record.VerdictNames())
			case !opts.Suggest:
				v, ok := record.ParseVerdict(verdictArg)
				if !ok {
					return cmdutil.UsageErrorf("unknown verdict %q: use one of %s", cmdutil.OneLine(verdictArg), record.VerdictNames())
				}
				opts.Verdict = v
			}
			for _, l := range opts.Lessons {
				if _, err := knowledge.CheckText(l); err != nil {
					return cmdutil.UsageErrorf("invalid --lesson: %s", cmdutil.Message(err))
				}
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return resolveRun(ctx, opts, s)
			})
		},
	}
}

// resolveRun records the conclusion: the one given, or Gemini's as confirmed.
func resolveRun(ctx context.Context, opts *ResolveOptions, s *factory.Store) error {
	id, err := lookup.HistoryID(ctx, s, opts.ID)
	if err != nil {
		return err
	}
	res := &record.Resolution{Verdict: opts.Verdict, Note: strings.TrimSpace(opts.Note)}
	if opts.Suggest {
		var ok bool
		if res, ok, err = suggest(ctx, opts, s, id); err != nil || !ok {
			return err
		}
	}
	res.ResolvedBy = s.Analyst(ctx)
	h, prev, err := recordResolution(ctx, s, id, res)
	if err != nil {
		return err
	}
	was := ""
	if prev != nil {
		was = " (was " + prev.Verdict.Label() + ")"
	}
	fmt.Fprintf(opts.IO.ErrOut, "Resolved %s as %s%s, by %s.\n", h.ID, h.Resolution.Verdict.Label(), was, termsafe.Line(h.Resolution.ResolvedBy))
	lessons := opts.Lessons
	kept, err := keepDrafts(opts.IO, opts.input(), opts.drafts, opts.Yes)
	if err != nil {
		return err
	}
	return learn(ctx, opts.IO, s, h, append(lessons, kept...))
}

// keepDrafts asks, for each lesson Gemini drafted, whether to keep it as team knowledge (the
// model's words become knowledge only on a person's yes); yes (-y) keeps them all. No answer
// keeps none of the rest.
func keepDrafts(ios *cmdutil.IOStreams, in *bufio.Reader, drafts []string, yes bool) ([]string, error) {
	if len(drafts) == 0 || yes {
		return drafts, nil
	}
	var kept []string
	for _, d := range drafts {
		fmt.Fprintf(ios.ErrOut, "Gemini drafts a lesson for the team's knowledge:\n%s\n", indent(termsafe.String(d)))
		answer, err := ask(ios, in, "Keep it? [y] yes, [N] no: ")
		if errors.Is(err, io.EOF) {
			return kept, nil
		}
		if err != nil {
			return nil, err
		}
		if a := strings.ToLower(answer); a == "y" || a == "yes" {
			kept = append(kept, d)
		}
	}
	return kept, nil
}

// learn keeps each lesson as a team knowledge entry: its source is h and its verdict, its
// alert type h's alert's, its author who resolved. The IDs go to stdout, one a line, as
// knowledge add prints them.
func learn(ctx context.Context, ios *cmdutil.IOStreams, s *factory.Store, h *record.History, lessons []string) error {
	if len(lessons) == 0 {
		return nil
	}
	var types []string
	if a, err := s.GetAlert(ctx, h.AlertID); err == nil {
		if t := alertpkg.Type(a.Data); t != "" {
			types = []string{t}
		}
	}
	for _, l := range lessons {
		e, err := knowledge.New(knowledge.Draft{Text: l, AlertTypes: types, Author: h.Resolution.ResolvedBy,
			Source: &record.KnowledgeSource{HistoryID: h.ID, Verdict: h.Resolution.Verdict}}, s.Redactor.Engine(), store.Now())
		if err != nil {
			return err
		}
		if err := s.PutKnowledge(ctx, e); err != nil {
			return err
		}
		fmt.Fprintln(ios.Out, e.ID)
		fmt.Fprintf(ios.ErrOut, "Kept the lesson as %s.\n", e.Ref())
	}
	return nil
}

// recordResolution records res on the history id through the conditional write every
// metadata change makes (changeHistory: a turn saved meanwhile is kept, and so is the
// verdict); its time is now. s must redact (the command's store stack does): the note is
// written redacted. It returns the history as saved and the conclusion it replaced (nil when
// it was open).
func recordResolution(ctx context.Context, s store.HistoryUpdater, id record.HistoryID, res *record.Resolution) (*record.History, *record.Resolution, error) {
	var prev *record.Resolution
	h, err := changeHistory(ctx, s, id, string(id), "resolve", func(h *record.History) error {
		prev = h.Resolution
		r := *res
		r.ResolvedAt = store.Now()
		h.Resolution = &r
		if h.Triage != nil {
			// The analyst's verdict beside the proposal: how often triage is right.
			agreed := r.Verdict == h.Triage.Verdict
			h.TriageAgreed = &agreed
		}
		return nil
	})
	return h, prev, err
}

// suggest asks Gemini for the conclusion and has it confirmed: ok is false when the analyst
// declined (nothing is recorded).
func suggest(ctx context.Context, opts *ResolveOptions, s *factory.Store, id record.HistoryID) (*record.Resolution, bool, error) {
	ios := opts.IO
	h, err := lookup.LoadHistory(ctx, s, id, true)
	if err != nil {
		return nil, false, err
	}
	if len(h.Contents) == 0 {
		return nil, false, cmdutil.UsageErrorf("history %s has no conversation to conclude from; give --verdict", h.ID)
	}
	a, err := s.GetAlert(ctx, h.AlertID)
	if err != nil {
		a = nil // concluded from the conversation alone
	}
	client, err := opts.LLM(ctx, factory.LLMOptions{})
	if err != nil {
		return nil, false, err
	}
	var sg *conclude.Suggestion
	err = ios.RunWithProgress(statusline.AskingGemini, func() (err error) {
		sg, err = conclude.Suggest(ctx, client, opts.Config().Model, a, h)
		return err
	})
	switch {
	case errors.Is(err, conclude.ErrBadAnswer):
		return nil, false, err
	case err != nil:
		return nil, false, report.DescribeModelError(err)
	}
	fmt.Fprintf(ios.ErrOut, "Gemini suggests: %s\n%s\n", sg.Verdict.Label(), indent(termsafe.String(sg.Conclusion)))
	conclude.Ground(sg, conclude.SourcesOf(a, h.Contents))
	printEvidence(ios.ErrOut, sg.Evidence)
	res := &record.Resolution{Verdict: sg.Verdict, Note: sg.Conclusion, Suggested: true}
	opts.drafts = sg.Lessons
	if opts.Yes {
		return res, true, nil
	}
	ok, err := confirmSuggestion(ios, opts.input(), res)
	return res, ok, err
}

// confirmSuggestion asks the analyst to record, edit or drop the suggestion in res (edited in
// place). No answer (stdin ends) drops it, like "no".
func confirmSuggestion(ios *cmdutil.IOStreams, in *bufio.Reader, res *record.Resolution) (bool, error) {
	ok, err := editSuggestion(ios, in, res)
	if errors.Is(err, io.EOF) {
		ok, err = false, nil
	}
	if !ok && err == nil {
		fmt.Fprintln(ios.ErrOut, "Nothing recorded.")
	}
	return ok, err
}

func editSuggestion(ios *cmdutil.IOStreams, in *bufio.Reader, res *record.Resolution) (bool, error) {
	answer, err := ask(ios, in, "Record it? [y] yes, [e] edit, [N] no: ")
	if err != nil {
		return false, err
	}
	switch strings.ToLower(answer) {
	case "y", "yes":
		return true, nil
	case "e", "edit":
	default:
		return false, nil
	}
	for tries := 0; ; tries++ {
		line, err := ask(ios, in, fmt.Sprintf("Verdict (%s) [%s]: ", record.VerdictNames(), res.Verdict))
		if err != nil {
			return false, err
		}
		if line == "" {
			break
		}
		if v, ok := record.ParseTypedVerdict(line); ok {
			res.Verdict = v
			break
		}
		if tries == 2 {
			return false, cmdutil.UsageErrorf("unknown verdict %q: use one of %s; nothing recorded", cmdutil.OneLine(line), record.VerdictNames())
		}
		fmt.Fprintf(ios.ErrOut, "Unknown verdict %q: use one of %s.\n", cmdutil.OneLine(line), record.VerdictNames())
	}
	line, err := ask(ios, in, "Conclusion (Enter keeps Gemini's, - for none): ")
	if err != nil {
		return false, err
	}
	switch line {
	case "":
	case "-":
		res.Note = ""
	default:
		res.Note = line
	}
	return true, nil
}

// ask writes prompt to stderr and reads one line of stdin, trimmed, through the streams'
// Prompt (nothing is drawn over the question). Stdin ending before an answer is io.EOF.
func ask(ios *cmdutil.IOStreams, in *bufio.Reader, prompt string) (string, error) {
	var line string
	err := ios.Prompt(func() (err error) {
		fmt.Fprint(ios.ErrOut, prompt)
		line, err = in.ReadString('\n')
		return err
	})
	switch {
	case errors.Is(err, io.EOF) && strings.TrimSpace(line) == "":
		fmt.Fprintln(ios.ErrOut) // end the prompt's line
		return "", io.EOF
	case err != nil && !errors.Is(err, io.EOF):
		return "", goerr.Wrap(err, "failed to read the answer")
	}
	return strings.TrimSpace(line), nil
}

// indent prints a conclusion under its heading, two spaces in.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// printEvidence lists what a suggested conclusion rests on, one value a line, marking what
// appears nowhere in the alert or the investigation's tool results.
func printEvidence(w io.Writer, ev []conclude.Evidence) {
	if len(ev) == 0 {
		fmt.Fprintln(w, "Evidence: none cited.")
		return
	}
	fmt.Fprintln(w, "Evidence:")
	for _, e := range ev {
		mark := "  "
		note := ""
		if e.Unsupported {
			mark = "! "
			note = "  [unsupported: found neither in the alert nor in any tool result]"
		}
		fmt.Fprintf(w, "%s%s: %s%s\n", mark, e.Value, e.Claim, note)
	}
}
