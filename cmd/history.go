package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/pager"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

func historyCommand(g *globalOptions) *cli.Command {
	// "history" alone lists, with the same flags as "history list".
	opts := &historyListOptions{}
	return &cli.Command{
		Name:      "history",
		Usage:     "list, show, rename and remove conversation histories",
		UsageText: "alertchat history [list] [-a ALERT_ID] [--limit N] [-o text|json]",
		Flags:     historyListFlags(opts, true),
		Commands: []*cli.Command{
			historyListCommand(g),
			historyShowCommand(g),
			historyRmCommand(g),
			historyRenameCommand(g),
			historyPruneCommand(g),
			historySyncCommand(g),
			historyFsckCommand(g),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("unknown history command %q; see 'alertchat history --help'", c.Args().First())
			}
			return runHistoryList(ctx, g, opts)
		},
	}
}

// Short IDs shown in tables, and the shortest prefix accepted for a history ID.
const (
	shortIDLen       = 8
	minHistoryPrefix = 8
	maxCandidates    = 10
)

// historyFinder is what resolving a history ID needs.
type historyFinder interface {
	FindHistories(ctx context.Context, prefix string, limit int) ([]model.HistoryID, error)
}

// resolveHistoryID turns what a user typed into a history ID: a full ID passes through as is
// (whether it exists is for the caller's load to say), a prefix of at least 8 characters must
// match exactly one history of the store's workspace. A short prefix or several matches are
// usage errors (the message lists the candidates); no match wraps store.ErrNotFound.
func resolveHistoryID(ctx context.Context, s historyFinder, arg string) (model.HistoryID, error) {
	arg = strings.TrimSpace(arg)
	if id := model.HistoryID(arg); store.ValidHistoryID(id) {
		return id, nil
	}
	if utf8.RuneCountInString(arg) < minHistoryPrefix {
		return "", usageErrorf("history ID %q is too short: give the full ID or at least %d characters of it", arg, minHistoryPrefix)
	}
	ids, err := s.FindHistories(ctx, arg, maxCandidates+1)
	if err != nil {
		return "", goerr.Wrap(err, "failed to look up history", goerr.V("prefix", arg))
	}
	switch len(ids) {
	case 0:
		return "", historyNotFound(arg)
	case 1:
		return ids[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "history ID %q is ambiguous; it matches:", arg)
	for i, id := range ids {
		if i == maxCandidates {
			b.WriteString("\n  ...")
			break
		}
		b.WriteString("\n  " + string(id))
	}
	return "", usageErrorf("%s", b.String())
}

func historyNotFound(arg string) error {
	return goerr.Wrap(store.ErrNotFound, fmt.Sprintf("no history %q", arg), goerr.V("history_id", arg))
}

// loadHistory reads a history (with its transcript when full is set); a missing one is the
// contract's "not found".
func loadHistory(ctx context.Context, s store.Histories, id model.HistoryID, full bool) (*model.History, error) {
	var h *model.History
	var err error
	if full {
		h, err = s.GetHistory(ctx, id)
	} else {
		h, err = s.GetHistoryMeta(ctx, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, historyNotFound(string(id))
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to load history", goerr.V("history_id", id))
	}
	return h, nil
}

// historySaver is what writing a history needs.
type historySaver interface {
	SaveHistory(ctx context.Context, h *model.History) error
}

// saveHistory is the single path by which the command line writes a history, so that a step
// every write needs (redaction) is applied in one place.
func saveHistory(ctx context.Context, s historySaver, h *model.History) error {
	return s.SaveHistory(ctx, h)
}

// historyJSON is a history in listings (-o json): the contract's fields first.
type historyJSON struct {
	ID           model.HistoryID `json:"id"`
	AlertID      model.AlertID   `json:"alert_id"`
	Title        string          `json:"title"`
	CreatedAt    string          `json:"created_at"`
	UpdatedAt    string          `json:"updated_at"`
	MessageCount int             `json:"message_count"`
	Usage        model.Usage     `json:"usage"`
	ParentID     model.HistoryID `json:"parent_id,omitempty"`
	ForkPoint    int             `json:"fork_point,omitempty"`
	// Pending is set when turns of the history are kept locally, not yet uploaded.
	Pending bool `json:"pending,omitempty"`
}

func newHistoryJSON(h *model.History) historyJSON {
	return historyJSON{
		ID: h.ID, AlertID: h.AlertID, Title: h.Title,
		CreatedAt: rfc3339(h.CreatedAt), UpdatedAt: rfc3339(h.UpdatedAt),
		MessageCount: h.MessageCount, Usage: h.Usage, ParentID: h.ParentID, ForkPoint: h.ForkPoint,
	}
}

// transcriptJSON is one history with its transcript (history show -o json, chat's /export):
// contents are genai.Content exactly as the SDK marshals them.
type transcriptJSON struct {
	ID           model.HistoryID  `json:"id"`
	AlertID      model.AlertID    `json:"alert_id"`
	Title        string           `json:"title"`
	CreatedAt    string           `json:"created_at"`
	UpdatedAt    string           `json:"updated_at"`
	MessageCount int              `json:"message_count"`
	Usage        model.Usage      `json:"usage"`
	Redactions   map[string]int   `json:"redactions"`
	ParentID     model.HistoryID  `json:"parent_id,omitempty"`
	Summary      *model.Summary   `json:"summary,omitempty"`
	Contents     []*genai.Content `json:"contents"`
}

func newTranscriptJSON(h *model.History) transcriptJSON {
	t := transcriptJSON{
		ID: h.ID, AlertID: h.AlertID, Title: h.Title,
		CreatedAt: rfc3339(h.CreatedAt), UpdatedAt: rfc3339(h.UpdatedAt),
		MessageCount: h.MessageCount, Usage: h.Usage, Redactions: h.Redactions,
		ParentID: h.ParentID, Contents: h.Contents, Summary: h.Summary,
	}
	if t.Redactions == nil {
		t.Redactions = map[string]int{}
	}
	if t.Contents == nil {
		t.Contents = []*genai.Content{}
	}
	return t
}

// ---- list

type historyListOptions struct {
	AlertID string
	Limit   int
	Output  string
}

func historyListFlags(opts *historyListOptions, local bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "alert", Aliases: []string{"a"}, Usage: "only histories of this alert", Destination: &opts.AlertID, Local: local},
		&cli.IntFlag{Name: "limit", Value: 50, Usage: "how many histories", Destination: &opts.Limit, Local: local},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text or json", Destination: &opts.Output, Local: local},
	}
}

func historyListCommand(g *globalOptions) *cli.Command {
	opts := &historyListOptions{}
	return &cli.Command{
		Name:      "list",
		Usage:     "list histories, most recently updated first",
		UsageText: "alertchat history list [-a ALERT_ID] [--limit N] [-o text|json]",
		Flags:     historyListFlags(opts, false),
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("unexpected arguments: %v", c.Args().Slice())
			}
			return runHistoryList(ctx, g, opts)
		},
	}
}

func runHistoryList(ctx context.Context, g *globalOptions, opts *historyListOptions) error {
	if err := outputFormat(opts.Output, "text", "json"); err != nil {
		return err
	}
	if opts.Limit <= 0 {
		return usageErrorf("--limit must be positive")
	}
	return g.withStore(ctx, func(s store.Store) error { return listHistories(ctx, g.io, s, opts) })
}

// collectHistories pages through the store until limit histories (limit <= 0: all of them).
func collectHistories(ctx context.Context, s store.Histories, q store.HistoryQuery, limit int) ([]*model.History, error) {
	var out []*model.History
	for limit <= 0 || len(out) < limit {
		q.Limit = store.MaxLimit
		if limit > 0 {
			q.Limit = min(limit-len(out), store.MaxLimit)
		}
		page, err := s.ListHistories(ctx, q)
		if err != nil {
			return nil, goerr.Wrap(err, "failed to list histories")
		}
		out = append(out, page.Histories...)
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			break
		}
	}
	return out, nil
}

func listHistories(ctx context.Context, ios *IOStreams, s store.Histories, opts *historyListOptions) error {
	hs, err := collectHistories(ctx, s, store.HistoryQuery{AlertID: model.AlertID(opts.AlertID)}, opts.Limit)
	if err != nil {
		return err
	}
	hs, pending := withPending(s, hs, model.AlertID(opts.AlertID), opts.Limit)
	if opts.Output == "json" {
		out := make([]historyJSON, 0, len(hs))
		for _, h := range hs {
			j := newHistoryJSON(h)
			j.Pending = pending[h.ID]
			out = append(out, j)
		}
		return printJSON(ios.Out, out)
	}
	if len(hs) == 0 {
		if ios.StdoutTTY {
			if opts.AlertID != "" {
				fmt.Fprintf(ios.ErrOut, "No histories for alert %s. Start one with: alertchat chat -a %s\n", cleanCell(opts.AlertID), cleanCell(opts.AlertID))
			} else {
				fmt.Fprintln(ios.ErrOut, "No histories yet. Start one with: alertchat chat -a ALERT_ID")
			}
		}
		return nil
	}
	t := newTable(ios.Out, ios.StdoutTTY, "ID", "TITLE", "ALERT", "UPDATED", "MSGS", "TOKENS")
	now := time.Now()
	for _, h := range hs {
		tokens := h.Usage.InputTokens + h.Usage.OutputTokens
		if ios.StdoutTTY {
			t.row(shortID(string(h.ID))+pendingMark(pending[h.ID]), h.Title, shortID(string(h.AlertID)), relativeTime(now, h.UpdatedAt),
				strconv.Itoa(h.MessageCount), compactCount(tokens))
			continue
		}
		t.row(string(h.ID), h.Title, string(h.AlertID), rfc3339(h.UpdatedAt),
			strconv.Itoa(h.MessageCount), strconv.FormatInt(tokens, 10))
	}
	t.flush()
	if len(pending) > 0 && ios.StdoutTTY {
		fmt.Fprintln(ios.ErrOut, "* has turns kept locally, not uploaded yet (alertchat history sync uploads them)")
	}
	return nil
}

func shortID(id string) string {
	if utf8.RuneCountInString(id) <= shortIDLen {
		return id
	}
	return string([]rune(id)[:shortIDLen])
}

// compactCount writes a count for people: 950, 1.2k, 3.4M.
func compactCount(n int64) string {
	f := float64(n)
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case f < 999_950:
		return trimZero(fmt.Sprintf("%.1f", f/1e3)) + "k"
	case f < 999_950_000:
		return trimZero(fmt.Sprintf("%.1f", f/1e6)) + "M"
	}
	return trimZero(fmt.Sprintf("%.1f", f/1e9)) + "G"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// ---- show

type historyShowOptions struct {
	Output string
	// Pager is $PAGER, for a transcript taller than the terminal.
	Pager string
}

func historyShowCommand(g *globalOptions) *cli.Command {
	opts := &historyShowOptions{}
	return &cli.Command{
		Name:      "show",
		Usage:     "show one transcript",
		UsageText: "alertchat history show ID [-o text|md|json]   (ID: full, or a unique prefix of 8+ characters)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text, md (Markdown) or json", Destination: &opts.Output},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := outputFormat(opts.Output, "text", "md", "json"); err != nil {
				return err
			}
			if c.Args().Len() != 1 {
				return usageErrorf("history show takes exactly one history ID")
			}
			opts.Pager = os.Getenv("PAGER")
			return g.withStore(ctx, func(s store.Store) error {
				return showHistory(ctx, g.io, s, c.Args().First(), opts)
			})
		},
	}
}

func showHistory(ctx context.Context, ios *IOStreams, s store.Histories, arg string, opts *historyShowOptions) error {
	id, err := resolveHistoryID(ctx, s, arg)
	if err != nil {
		return err
	}
	h, err := loadHistory(ctx, s, id, true)
	if err != nil {
		return err
	}
	switch opts.Output {
	case "json":
		return printJSON(ios.Out, newTranscriptJSON(h))
	case "md":
		return renderTranscriptMarkdown(ios.Out, h)
	}
	if ios.Pretty() {
		return showRendered(ctx, ios, h, opts.Pager)
	}
	return renderTranscriptText(ios.Out, h)
}

// showRendered shows a transcript to a person as chat does, Markdown rendered, through the
// pager when it is taller than the terminal.
func showRendered(ctx context.Context, ios *IOStreams, h *model.History, pagerCommand string) error {
	var md strings.Builder
	if err := renderTranscriptMarkdown(&md, h); err != nil {
		return err
	}
	r, err := newMarkdownRenderer(ios)
	if err != nil {
		return err
	}
	width, height := termSize(ios.Out)
	return pager.Show(ctx, pager.Options{Out: ios.Out, ErrOut: ios.ErrOut, TTY: ios.StdoutTTY,
		Width: width, Height: height, Command: pagerCommand}, r.Render(md.String()))
}

// errWriter remembers the first write error, so renderers can write freely and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *errWriter) result() error {
	if e.err != nil {
		return goerr.Wrap(e.err, "failed to write transcript")
	}
	return nil
}

func oneLine(s string) string { return termsafe.Line(s) }

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func speaker(role string) string {
	switch role {
	case genai.RoleUser:
		return "You"
	case genai.RoleModel:
		return "Gemini"
	case "":
		return "(no role)"
	}
	return oneLine(role)
}

func displayTitle(h *model.History) string {
	if t := oneLine(h.Title); t != "" {
		return t
	}
	return "(untitled)"
}

// redactionSummary is "EMAIL 2, IP 1", or "" when nothing was redacted.
func redactionSummary(r map[string]int) string {
	kinds := make([]string, 0, len(r))
	for k, n := range r {
		if n > 0 {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", oneLine(k), r[k]))
	}
	return strings.Join(parts, ", ")
}

func tokenSummary(u model.Usage) string {
	return fmt.Sprintf("%s (%d in, %d out)", compactCount(u.InputTokens+u.OutputTokens), u.InputTokens, u.OutputTokens)
}

// renderTranscriptText writes a history for reading in a terminal: a header, then one block per
// content. Everything from storage is sanitized.
func renderTranscriptText(w io.Writer, h *model.History) error {
	return renderTranscript(w, h, transcriptStyle{
		title: func(t string) string { return t + "\n" },
		field: func(label, value string, _ bool) string {
			return fmt.Sprintf("%-9s %s\n", strings.ToLower(label)+":", value)
		},
		section: func(who string) string { return "\n" + who + ":\n" },
		part:    writeTextPart,
	})
}

// transcriptStyle is how one output format writes the parts of a transcript.
type transcriptStyle struct {
	title   func(title string) string
	field   func(label, value string, code bool) string
	section func(speaker string) string
	part    func(ew *errWriter, p *genai.Part)
}

// renderTranscript walks a history once for every output format: title, metadata, then each
// content's parts.
func renderTranscript(w io.Writer, h *model.History, st transcriptStyle) error {
	ew := &errWriter{w: w}
	ew.printf("%s", st.title(displayTitle(h)))
	field := func(label, value string, code bool) { ew.printf("%s", st.field(label, oneLine(value), code)) }
	field("ID", string(h.ID), true)
	field("Alert", string(h.AlertID), true)
	if h.ParentID != "" {
		field("Parent", string(h.ParentID), true)
	}
	field("Created", rfc3339(h.CreatedAt), false)
	field("Updated", rfc3339(h.UpdatedAt), false)
	field("Messages", strconv.Itoa(h.MessageCount), false)
	field("Tokens", tokenSummary(h.Usage), false)
	if r := redactionSummary(h.Redactions); r != "" {
		field("Redacted", r, false)
	}
	if s := summaryNote(h); s != "" {
		field("Summary", s, false)
	}
	for _, c := range h.Contents {
		if c == nil {
			continue
		}
		ew.printf("%s", st.section(speaker(c.Role)))
		for _, p := range c.Parts {
			if p != nil {
				st.part(ew, p)
			}
		}
	}
	return ew.result()
}

func writeTextPart(ew *errWriter, p *genai.Part) {
	switch {
	case p.Text != "" && p.Thought:
		for _, line := range strings.Split(strings.TrimRight(termsafe.String(p.Text), "\n"), "\n") {
			ew.printf("[thought] %s\n", line)
		}
	case p.Text != "":
		ew.printf("%s\n", strings.TrimRight(termsafe.String(p.Text), "\n"))
	case p.FunctionCall != nil:
		ew.printf("-> call %s(%s)\n", oneLine(p.FunctionCall.Name), termsafe.String(compactJSON(p.FunctionCall.Args)))
	case p.FunctionResponse != nil:
		ew.printf("<- %s: %s\n", oneLine(p.FunctionResponse.Name), termsafe.String(compactJSON(p.FunctionResponse.Response)))
	case p.ExecutableCode != nil:
		code := termsafe.String(p.ExecutableCode.Code)
		fence := codeFence(code)
		ew.printf("%s%s\n%s\n%s\n", fence, codeLanguage(p.ExecutableCode.Language), strings.TrimRight(code, "\n"), fence)
	case p.CodeExecutionResult != nil:
		ew.printf("[code result: %s]\n", oneLine(string(p.CodeExecutionResult.Outcome)))
		if out := strings.TrimRight(termsafe.String(p.CodeExecutionResult.Output), "\n"); out != "" {
			ew.printf("%s\n", out)
		}
	case p.InlineData != nil:
		ew.printf("[inline data: %s, %d bytes]\n", oneLine(p.InlineData.MIMEType), len(p.InlineData.Data))
	case p.FileData != nil:
		ew.printf("[file: %s]\n", oneLine(p.FileData.FileURI))
	case p.ToolCall != nil:
		ew.printf("-> tool call %s\n", termsafe.String(compactJSON(p.ToolCall)))
	case p.ToolResponse != nil:
		ew.printf("<- tool response %s\n", termsafe.String(compactJSON(p.ToolResponse)))
	}
}

// codeFence returns a Markdown fence longer than any backtick run in s.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// codeLanguage is a fence's info string for the SDK's language ("PYTHON" -> "python").
func codeLanguage(l genai.Language) string {
	s := strings.ToLower(oneLine(string(l)))
	if s == "language_unspecified" || strings.ContainsAny(s, "` ") {
		return ""
	}
	return s
}

// inlineCode writes s as a Markdown code span.
func inlineCode(s string) string {
	s = oneLine(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// renderTranscriptMarkdown writes a history as a Markdown document to share: a title, a metadata
// list, then a "## You" / "## Gemini" section per content. Everything from storage is sanitized.
func renderTranscriptMarkdown(w io.Writer, h *model.History) error {
	return renderTranscript(w, h, transcriptStyle{
		title: func(t string) string { return "# " + t + "\n\n" },
		field: func(label, value string, code bool) string {
			if code {
				value = inlineCode(value)
			}
			return "- " + label + ": " + value + "\n"
		},
		section: func(who string) string { return "\n## " + who + "\n" },
		part:    writeMarkdownPart,
	})
}

func fenced(ew *errWriter, info, body string) {
	body = strings.TrimRight(body, "\n")
	fence := codeFence(body)
	ew.printf("\n%s%s\n%s\n%s\n", fence, info, body, fence)
}

func writeMarkdownPart(ew *errWriter, p *genai.Part) {
	switch {
	case p.Text != "" && p.Thought:
		ew.printf("\n> *Thought:*\n")
		for _, line := range strings.Split(strings.TrimRight(termsafe.String(p.Text), "\n"), "\n") {
			ew.printf(">%s\n", strings.TrimRight(" "+line, " "))
		}
	case p.Text != "":
		// Below the transcript's "## Gemini", an answer's own headings start at "###".
		ew.printf("\n%s\n", strings.TrimRight(mdstream.DemoteHeadings(termsafe.String(p.Text), 3), "\n"))
	case p.FunctionCall != nil:
		ew.printf("\n-> call %s\n", inlineCode(p.FunctionCall.Name))
		fenced(ew, "json", termsafe.String(compactJSON(p.FunctionCall.Args)))
	case p.FunctionResponse != nil:
		ew.printf("\n<- %s\n", inlineCode(p.FunctionResponse.Name))
		fenced(ew, "json", termsafe.String(compactJSON(p.FunctionResponse.Response)))
	case p.ExecutableCode != nil:
		fenced(ew, codeLanguage(p.ExecutableCode.Language), termsafe.String(p.ExecutableCode.Code))
	case p.CodeExecutionResult != nil:
		ew.printf("\nCode result (%s):\n", oneLine(string(p.CodeExecutionResult.Outcome)))
		fenced(ew, "", termsafe.String(p.CodeExecutionResult.Output))
	case p.InlineData != nil:
		ew.printf("\n*[inline data: %s, %d bytes]*\n", oneLine(p.InlineData.MIMEType), len(p.InlineData.Data))
	case p.FileData != nil:
		ew.printf("\n*[file: %s]*\n", inlineCode(p.FileData.FileURI))
	case p.ToolCall != nil:
		ew.printf("\n-> tool call\n")
		fenced(ew, "json", termsafe.String(compactJSON(p.ToolCall)))
	case p.ToolResponse != nil:
		ew.printf("\n<- tool response\n")
		fenced(ew, "json", termsafe.String(compactJSON(p.ToolResponse)))
	}
}

// ---- rm

type historyRmOptions struct {
	Yes bool
}

func historyRmCommand(g *globalOptions) *cli.Command {
	opts := &historyRmOptions{}
	return &cli.Command{
		Name:      "rm",
		Usage:     "delete histories (transcript and metadata)",
		UsageText: "alertchat history rm [-y] ID...   (IDs: full, or unique prefixes of 8+ characters)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation", Destination: &opts.Yes},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() == 0 {
				return usageErrorf("history rm takes one or more history IDs")
			}
			return g.withStore(ctx, func(s store.Store) error {
				return removeHistories(ctx, g.io, s, c.Args().Slice(), opts)
			})
		},
	}
}

// removeHistories resolves every argument first and deletes nothing unless all of them name
// existing histories.
func removeHistories(ctx context.Context, ios *IOStreams, s store.Histories, args []string, opts *historyRmOptions) error {
	var ids []model.HistoryID
	seen := map[model.HistoryID]bool{}
	for _, arg := range args {
		id, err := resolveHistoryID(ctx, s, arg)
		if err != nil {
			return err
		}
		// A full ID is not looked up by the resolver: make sure it exists before deleting anything.
		if _, err := loadHistory(ctx, s, id, false); err != nil {
			return err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if !opts.Yes {
		ok, err := confirm(ios, fmt.Sprintf("Delete %s?", plural(len(ids), "history", "histories")))
		if err != nil || !ok {
			return err
		}
	}
	for i, id := range ids {
		if err := s.DeleteHistory(ctx, id); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				err = historyNotFound(string(id))
			}
			return goerr.Wrap(err, fmt.Sprintf("failed to delete history %s (%d of %d deleted)", id, i, len(ids)), goerr.V("history_id", id))
		}
		fmt.Fprintf(ios.ErrOut, "Deleted %s\n", id)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// confirm asks a yes/no question on a terminal (stdin and stdout both terminals); elsewhere it
// answers yes without asking. A "no" prints "Aborted." and returns false.
func confirm(ios *IOStreams, question string) (bool, error) {
	if !ios.StdinTTY || !ios.StdoutTTY {
		return true, nil
	}
	fmt.Fprintf(ios.ErrOut, "%s [y/N] ", question)
	line, err := bufio.NewReader(ios.In).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, goerr.Wrap(err, "failed to read the answer")
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	if err != nil { // EOF without an answer: end the prompt's line
		fmt.Fprintln(ios.ErrOut)
	}
	fmt.Fprintln(ios.ErrOut, "Aborted.")
	return false, nil
}

// ---- rename

func historyRenameCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "rename",
		Usage:     "set a history's title (a manual title is never regenerated)",
		UsageText: "alertchat history rename ID TITLE",
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 2 {
				return usageErrorf("history rename takes a history ID and a title (quote a title with spaces)")
			}
			title := session.CleanManualTitle(c.Args().Get(1))
			if title == "" {
				return usageErrorf("the title is empty")
			}
			return g.withStore(ctx, func(s store.Store) error {
				id, err := renameHistory(ctx, s, c.Args().First(), title)
				if err != nil {
					return err
				}
				fmt.Fprintf(g.io.ErrOut, "Renamed %s to %q\n", id, title)
				return nil
			})
		},
	}
}

// renameAttempts bounds the load-and-save retries when other writers keep saving the history.
const renameAttempts = 5

// renameHistory sets a manual title on the history arg names, retrying on a concurrent save.
func renameHistory(ctx context.Context, s store.Histories, arg, title string) (model.HistoryID, error) {
	id, err := resolveHistoryID(ctx, s, arg)
	if err != nil {
		return "", err
	}
	for attempt := 1; ; attempt++ {
		h, err := loadHistory(ctx, s, id, true)
		if err != nil {
			return "", err
		}
		h.Title, h.TitleSource = title, model.TitleManual
		err = saveHistory(ctx, s, h)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, store.ErrConflict) || attempt == renameAttempts {
			return "", goerr.Wrap(err, "failed to rename history", goerr.V("history_id", id), goerr.V("attempts", attempt))
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Duration(attempt*attempt) * 20 * time.Millisecond):
		}
	}
}

// ---- prune

type historyPruneOptions struct {
	OlderThan string
	DryRun    bool
	Yes       bool
}

func historyPruneCommand(g *globalOptions) *cli.Command {
	opts := &historyPruneOptions{}
	return &cli.Command{
		Name:      "prune",
		Usage:     "delete histories not updated for a while",
		UsageText: "alertchat history prune --older-than DURATION [--dry-run] [-y]   (DURATION: 30d, 2w, 12h, 90m, ...)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "older-than", Usage: "delete histories last updated longer ago than this (30d, 2w, 12h, 90m)", Required: true, Destination: &opts.OlderThan},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be deleted, delete nothing", Destination: &opts.DryRun},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation", Destination: &opts.Yes},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("unexpected arguments: %v", c.Args().Slice())
			}
			age, err := parseAge(opts.OlderThan)
			if err != nil {
				return err
			}
			return g.withStore(ctx, func(s store.Store) error {
				return pruneHistories(ctx, g.io, s, store.Now().Add(-age), opts)
			})
		},
	}
}

var ageSegment = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([a-zµμ]+)`)

// parseAge parses a positive age: a Go duration ("12h", "90m", "1h30m") whose units may also
// include d (24h) and w (7d), as in "30d", "2w" or "1w2d".
func parseAge(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, usageErrorf("empty duration: use e.g. 30d, 2w, 12h or 90m")
	}
	if strings.HasPrefix(in, "-") {
		return 0, usageErrorf("invalid duration %q: it must be positive", s)
	}
	rest := strings.TrimPrefix(in, "+")
	var total float64
	for rest != "" {
		m := ageSegment.FindStringSubmatch(rest)
		if m == nil {
			return 0, usageErrorf("invalid duration %q: use e.g. 30d, 2w, 12h or 90m", s)
		}
		rest = rest[len(m[0]):]
		var d float64
		switch m[2] {
		case "d", "w":
			n, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return 0, usageErrorf("invalid duration %q: use e.g. 30d, 2w, 12h or 90m", s)
			}
			d = n * float64(24*time.Hour)
			if m[2] == "w" {
				d *= 7
			}
		default:
			pd, err := time.ParseDuration(m[0])
			if err != nil {
				return 0, usageErrorf("invalid duration %q: use e.g. 30d, 2w, 12h or 90m", s)
			}
			d = float64(pd)
		}
		total += d
	}
	if total >= math.MaxInt64 {
		return 0, usageErrorf("duration %q is too long", s)
	}
	if d := time.Duration(total); d > 0 {
		return d, nil
	}
	return 0, usageErrorf("invalid duration %q: it must be positive", s)
}

func pruneHistories(ctx context.Context, ios *IOStreams, s store.Histories, before time.Time, opts *historyPruneOptions) error {
	hs, err := collectHistories(ctx, s, store.HistoryQuery{UpdatedBefore: before}, 0)
	if err != nil {
		return err
	}
	since := rfc3339(before)
	if len(hs) == 0 {
		fmt.Fprintf(ios.ErrOut, "No histories last updated before %s.\n", since)
		return nil
	}
	if opts.DryRun {
		for _, h := range hs {
			fmt.Fprintln(ios.Out, h.ID)
		}
		fmt.Fprintf(ios.ErrOut, "Would delete %s last updated before %s (dry run: nothing deleted).\n", plural(len(hs), "history", "histories"), since)
		return nil
	}
	if !opts.Yes {
		ok, err := confirm(ios, fmt.Sprintf("Delete %s last updated before %s?", plural(len(hs), "history", "histories"), since))
		if err != nil || !ok {
			return err
		}
	}
	deleted := 0
	for _, h := range hs {
		err := s.DeleteHistory(ctx, h.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile by someone else: the goal is reached
		}
		if err != nil {
			return goerr.Wrap(err, fmt.Sprintf("failed to delete history %s (%d of %d deleted)", h.ID, deleted, len(hs)), goerr.V("history_id", h.ID))
		}
		deleted++
		fmt.Fprintln(ios.Out, h.ID)
	}
	fmt.Fprintf(ios.ErrOut, "Deleted %s last updated before %s.\n", plural(deleted, "history", "histories"), since)
	return nil
}
