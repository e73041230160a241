// Package lineedit reads the chat's questions at a terminal: ergochat/readline (history,
// editing keys, Ctrl-C and Ctrl-D) with bracketed paste, so a pasted log is one question.
//
// readline reads its input through a reader it is given and ends a line at every CR or LF; it
// knows nothing of bracketed paste. Rather than replace it, Editor hands it a PasteReader,
// which delivers each paste whole as part of one line (pasted line breaks shown as ␤, editable
// like any character; a big paste as a placeholder such as "[pasted text #k3x-1: 500 lines,
// 40 KB]", since readline redraws the line for every character it takes), and asks the
// terminal for bracketed paste only while the prompt is shown. The line returned has the
// pasted text back.
package lineedit

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ergochat/readline"
	"github.com/m-mizutani/goerr/v2"
)

// ErrInterrupt is returned by ReadLine when Ctrl-C is pressed.
var ErrInterrupt = readline.ErrInterrupt

// Config is what the editor needs.
type Config struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Terminal is whether Stdin and Stdout are a terminal; bracketed paste is asked for only then.
	Terminal bool
	// History keeps input history between runs (nil keeps none): the editor starts with its
	// entries and gives it every question read, whole (ReadQuestion). What it writes is its own
	// affair (the chat's redacts each question whole before writing); within the run the raw
	// lines stay in memory. HistoryLimit entries.
	History      History
	HistoryLimit int
	// OnInterrupt runs when Ctrl-C is pressed at an empty prompt (to say how to leave).
	OnInterrupt func()
	// A paste up to InlinePasteBytes and InlinePasteLines is put in the line to edit; a bigger
	// one stands there as a placeholder (zero: DefaultInlineBytes, DefaultInlineLines).
	InlinePasteBytes, InlinePasteLines int
}

// History is a lasting input history: one entry a question, line breaks included.
type History interface {
	Entries() []string
	Add(question string) error
}

// Editor reads lines and questions. A process has one at a time (readline keeps the
// terminal's resize handler in a package variable).
type Editor struct {
	rl          *readline.Instance
	pr          *PasteReader
	out         io.Writer
	terminal    bool
	onInterrupt func()
	history     History
	// HistoryErr, when set, is told when the lasting history cannot be written.
	HistoryErr func(error)
}

// starting serialises readline.NewFromConfig, which sets readline's package-level resize
// handler without a lock: editors started at once (tests run several chats) would race on it.
var starting sync.Mutex

// New starts an editor. Close it when done.
func New(cfg Config) (*Editor, error) {
	// Placeholders of big pastes differ from run to run, as input history keeps them.
	pr := NewPasteReader(cfg.Stdin, strconv.FormatInt(time.Now().UnixMilli()%(36*36*36), 36)+"-")
	pr.InlineBytes, pr.InlineLines = cfg.InlinePasteBytes, cfg.InlinePasteLines
	starting.Lock()
	rl, err := readline.NewFromConfig(&readline.Config{
		Prompt:                 "> ",
		HistoryLimit:           cfg.HistoryLimit,
		DisableAutoSaveHistory: true,
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
		Stdin:                  pr,
		Stdout:                 cfg.Stdout,
		Stderr:                 cfg.Stderr,
	})
	starting.Unlock()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to start the line editor")
	}
	if cfg.History != nil {
		// a question of several lines is recalled as one line to edit, as a paste of it would
		// stand there (its breaks as PasteNewline, a big one as a placeholder)
		for _, q := range cfg.History.Entries() {
			_ = rl.SaveToHistory(pr.Line(q))
		}
	}
	return &Editor{rl: rl, pr: pr, out: cfg.Stdout, terminal: cfg.Terminal, onInterrupt: cfg.OnInterrupt, history: cfg.History}, nil
}

// Readline is the underlying editor, for a prompt that needs no paste handling (a y/N
// question). Lines it reads still pass through the paste filter.
func (e *Editor) Readline() *readline.Instance { return e.rl }

// Close releases the terminal.
func (e *Editor) Close() error { return e.rl.Close() }

// ReadLine reads one line after prompt; a paste is part of the line, its line breaks included.
// It returns ErrInterrupt on Ctrl-C and io.EOF on Ctrl-D at an empty line.
func (e *Editor) ReadLine(prompt string) (string, error) {
	e.rl.SetPrompt(prompt)
	if e.terminal {
		_, _ = io.WriteString(e.out, EnablePaste)
		defer func() { _, _ = io.WriteString(e.out, DisablePaste) }()
	}
	line, err := e.rl.ReadLine()
	if err == nil && strings.TrimSpace(line) != "" {
		_ = e.rl.SaveToHistory(line) // as edited: a recalled paste stays one line
	}
	return e.pr.Decode(line), err
}

// remember gives a question read to the lasting history, whole: redaction there sees what a
// line alone does not (a private key typed over the lines of a """ block).
func (e *Editor) remember(q string) {
	if e.history == nil || strings.TrimSpace(q) == "" {
		return
	}
	if err := e.history.Add(q); err != nil && e.HistoryErr != nil {
		e.HistoryErr(err)
	}
}

// ReadQuestion reads one question: a line (a paste included), a line continued by a trailing
// backslash, or the lines between two lines of just """. Ctrl-C clears the line (and abandons
// a continued question or a """ block, returning ""); Ctrl-D at an empty prompt returns io.EOF.
// The question read goes to the lasting history whole.
func (e *Editor) ReadQuestion() (string, error) {
	q, err := e.readQuestion()
	if err == nil {
		e.remember(q)
	}
	return q, err
}

func (e *Editor) readQuestion() (string, error) {
	line, err := e.ReadLine("> ")
	for errors.Is(err, ErrInterrupt) {
		if line == "" && e.onInterrupt != nil {
			e.onInterrupt()
		}
		line, err = e.ReadLine("> ")
	}
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(line) == `"""` {
		return e.readBlock()
	}
	var lines []string
	for strings.HasSuffix(line, `\`) {
		lines = append(lines, strings.TrimSuffix(line, `\`))
		line, err = e.ReadLine(". ")
		if errors.Is(err, ErrInterrupt) {
			return "", nil // Ctrl-C abandons the continued question
		}
		if err != nil {
			return "", err
		}
	}
	return strings.Join(append(lines, line), "\n"), nil
}

func (e *Editor) readBlock() (string, error) {
	var lines []string
	for {
		line, err := e.ReadLine(`""" `)
		if errors.Is(err, ErrInterrupt) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(line) == `"""` {
			return strings.Join(lines, "\n"), nil
		}
		lines = append(lines, line)
	}
}
