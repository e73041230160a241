// Package statusline owns a terminal's status line: the one line at the bottom of what a person
// sees where the program says what it waits for (a spinning indicator and a label, "asking
// Gemini…") or how far it has come (a progress line, "[#####.....] 50/200"). Everything that
// draws there goes through one Line, under one lock, so that nothing else need hold or pass
// around an indicator:
//
//   - Start shows the indicator with a label, or changes the label of the one showing;
//     Progress shows a progress line instead.
//   - Stop erases the line and shows the cursor again: before an answer's first byte, and
//     when the program ends.
//   - Prompt takes the line away while a question is asked, so that nothing is drawn over it;
//     lines printed meanwhile (Println) wait until the question is answered, and the line comes
//     back as it was asked to be.
//   - Println prints a line above the status line.
//
// The indicator is drawn by github.com/briandowns/spinner, only on a terminal: never into a
// file, a pipe or a buffer.
package statusline

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/briandowns/spinner"

	"github.com/alertchat/alertchat/pkg/format"
)

// Labels of the waits of a chat.
const (
	CheckingEarlier = "checking earlier conversations…"
	AskingGemini    = "asking Gemini…"
	Saving          = "saving…"
	Summarising     = "summarising older turns…"
)

// Running is the label of a wait for a tool.
func Running(tool string) string { return "running " + tool }

// frames are the indicator's: braille dots, ten a second.
var frames = spinner.CharSets[14]

const interval = 100 * time.Millisecond

// maxHeld bounds what Println keeps while a prompt is up; past it lines are written at once.
const maxHeld = 1 << 20

// Options say where and when a Line draws.
type Options struct {
	// Out is where the line is drawn: the terminal's stderr.
	Out io.Writer
	// Indicator allows the spinning indicator. It is drawn only when Out is also an *os.File
	// that is a terminal.
	Indicator bool
	// Progress allows progress lines.
	Progress bool
	// Width returns the terminal's width in columns, 0 when unknown. A label or progress line
	// is cut to fit: a line that wrapped could not be redrawn in place.
	Width func() int
	// Input is the terminal the person types on (stdin), nil when it is not one. While the
	// indicator is drawn its echo is off: keys typed ahead would otherwise be echoed by the
	// terminal onto the indicator's line ("⠋ asking Gemini…CALL"), and the line editor could
	// not take them back. They wait, unechoed, for the line editor's next prompt.
	Input *os.File
}

// mode is what the line is asked to show.
type mode int

const (
	showNothing mode = iota
	showIndicator
	showProgress
)

// Line is a terminal's status line. Its methods are safe from several goroutines and on a
// nil *Line (which draws nothing).
type Line struct {
	o    Options
	file *os.File // Out as a file, for the indicator's terminal check; nil: no indicator

	// prompt is held while a question is asked: one question at a time.
	prompt sync.Mutex

	mu     sync.Mutex
	want   mode
	label  string
	text   string
	paused bool
	held   bytes.Buffer
	// What is on the screen: the running indicator, or a progress line.
	spin     *spinner.Spinner
	progress bool
	echoOn   func() // gives the echo back; nil while it is on
}

// New returns the status line drawn on o.Out.
func New(o Options) *Line {
	l := &Line{o: o}
	if f, ok := o.Out.(*os.File); ok && o.Indicator {
		l.file = f
	}
	if o.Out == nil {
		l.o.Out = io.Discard
	}
	return l
}

// Start shows the indicator labelled label, or changes the label of the one showing.
func (l *Line) Start(label string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.want, l.label = showIndicator, label
	l.draw()
}

// Progress shows text as the status line (a progress bar, a job's state), redrawn in place.
func (l *Line) Progress(text string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.want, l.text = showProgress, text
	l.draw()
}

// Stop erases the status line: nothing is drawn there until the next Start or Progress.
func (l *Line) Stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.want = showNothing
	l.erase()
}

// Println writes s and a line break above the status line, which is drawn again below it.
// While a prompt is up the line waits, and is written when the prompt is answered.
func (l *Line) Println(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.paused && l.held.Len() < maxHeld {
		l.held.WriteString(s + "\n")
		return
	}
	l.printAbove(s + "\n")
}

// Prompt runs ask, which puts a question to the person and reads the answer, with the status
// line taken away: nothing is drawn over the question, and what Println is given meanwhile is
// written after. One prompt runs at a time. ask must write its question itself (Println would
// wait for it); afterwards the line shows what was last asked of it.
func (l *Line) Prompt(ask func() error) error {
	if l == nil {
		return ask()
	}
	l.prompt.Lock()
	defer l.prompt.Unlock()
	l.mu.Lock()
	l.erase()
	l.paused = true
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.paused = false
		if l.held.Len() > 0 {
			_, _ = l.o.Out.Write(l.held.Bytes())
			l.held.Reset()
		}
		l.draw()
	}()
	return ask()
}

// draw brings the screen in line with what is wanted; l.mu is held.
func (l *Line) draw() {
	if l.paused {
		return
	}
	switch l.want {
	case showIndicator:
		if l.file == nil {
			l.erase()
			return
		}
		suffix := " " + l.fitLabel(l.label)
		if l.spin != nil {
			l.spin.Lock()
			l.spin.Suffix = suffix
			l.spin.Unlock()
			return
		}
		l.eraseProgress()
		if l.o.Input != nil && l.echoOn == nil {
			l.echoOn = echoOff(l.o.Input)
		}
		l.spin = spinner.New(frames, interval, spinner.WithWriterFile(l.file), spinner.WithSuffix(suffix))
		l.spin.Start()
	case showProgress:
		if !l.o.Progress {
			l.erase()
			return
		}
		l.stopSpin()
		_, _ = io.WriteString(l.o.Out, "\r"+l.fit(l.text, 1)+"\x1b[K")
		l.progress = true
	default:
		l.erase()
	}
}

// printAbove writes s, whole lines, with the status line out of the way; l.mu is held.
func (l *Line) printAbove(s string) {
	switch {
	case l.spin != nil:
		// The indicator draws its next frame on the line below what is written here.
		l.spin.Lock()
		_, _ = io.WriteString(l.o.Out, "\r\x1b[K"+s)
		l.spin.Unlock()
	case l.progress:
		_, _ = io.WriteString(l.o.Out, "\r\x1b[K"+s)
		l.progress = false
		l.draw()
	default:
		_, _ = io.WriteString(l.o.Out, s)
	}
}

// erase takes whatever is drawn off the screen; l.mu is held.
func (l *Line) erase() {
	l.stopSpin()
	l.eraseProgress()
}

func (l *Line) stopSpin() {
	if l.spin != nil {
		// Stop erases the line and shows the cursor; the spinner draws nothing after it.
		l.spin.Stop()
		l.spin = nil
	}
	if l.echoOn != nil {
		l.echoOn()
		l.echoOn = nil
	}
}

func (l *Line) eraseProgress() {
	if l.progress {
		_, _ = io.WriteString(l.o.Out, "\r\x1b[K")
		l.progress = false
	}
}

// fit cuts s so that it and reserve more columns fit the terminal's width, the last column
// left free (a character there makes some terminals wrap).
func (l *Line) fit(s string, reserve int) string {
	w := 0
	if l.o.Width != nil {
		w = l.o.Width()
	}
	if w <= 0 {
		return s
	}
	max := w - reserve - 1
	if max < 1 {
		return ""
	}
	return format.Truncate(s, max, format.Ellipsis)
}

// fitLabel is fit for the indicator's label. The spinner measures its line in bytes, not
// columns, to decide how many lines to erase before each frame: the label is also kept within
// that measure (the frame takes 3 bytes and its space 1), or the spinner would erase the lines
// above it.
func (l *Line) fitLabel(s string) string {
	s = l.fit(s, 3)
	w := 0
	if l.o.Width != nil {
		w = l.o.Width()
	}
	if w <= 0 {
		return s
	}
	for max := w - 5; len(s) > max && s != ""; {
		r := []rune(strings.TrimSuffix(s, format.Ellipsis))
		if len(r) <= 1 {
			return ""
		}
		s = string(r[:len(r)-1]) + format.Ellipsis
	}
	return s
}
