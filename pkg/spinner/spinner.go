// Package spinner shows, on a person's terminal, what the program is waiting for: a spinning
// mark and a label ("asking Gemini…") that the caller changes as the wait moves on. Stopped,
// it leaves nothing on the screen (the line is erased, the cursor shown again).
package spinner

import (
	"io"
	"sync"
	"time"

	"github.com/alertchat/alertchat/pkg/format"
)

// Labels for the waits of a chat.
const (
	CheckingEarlier = "checking earlier conversations…"
	AskingGemini    = "asking Gemini…"
	Saving          = "saving…"
	Summarising     = "summarising older turns…"
)

var frames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const interval = 100 * time.Millisecond

// Spinner is a running indicator, or nothing when the output is not for a person. Its methods
// are safe on a nil *Spinner and from several goroutines.
type Spinner struct {
	mu    sync.Mutex
	w     io.Writer
	width int // columns of the terminal, 0 when unknown
	label string
	frame int
	stop  chan struct{}
	done  chan struct{}
}

// Option changes how a Spinner draws.
type Option func(*Spinner)

// Width keeps the spinner's line within cols columns (a label wider is cut): a line that
// wrapped could not be redrawn in place.
func Width(cols int) Option { return func(sp *Spinner) { sp.width = cols } }

// Start starts an indicator labelled label on w when enabled (w is a terminal and colour is
// allowed); otherwise the Spinner does nothing. The first frame is drawn at once.
func Start(w io.Writer, enabled bool, label string, opts ...Option) *Spinner {
	if !enabled {
		return &Spinner{}
	}
	sp := &Spinner{w: w, label: label, stop: make(chan struct{}), done: make(chan struct{})}
	for _, o := range opts {
		o(sp)
	}
	sp.mu.Lock()
	_, _ = io.WriteString(w, "\x1b[?25l")
	sp.draw()
	sp.mu.Unlock()
	go sp.run(sp.stop)
	return sp
}

func (sp *Spinner) run(stop <-chan struct{}) {
	defer close(sp.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			sp.mu.Lock()
			sp.frame = (sp.frame + 1) % len(frames)
			sp.draw()
			sp.mu.Unlock()
		}
	}
}

// draw writes the current frame; sp.mu is held.
func (sp *Spinner) draw() {
	label := sp.label
	if sp.width > 0 {
		// The frame and its space take two columns; the last column is left free, as a
		// character there makes some terminals wrap.
		label = format.Truncate(label, sp.width-3, format.Ellipsis)
	}
	_, _ = io.WriteString(sp.w, "\r"+frames[sp.frame]+" "+label+"\x1b[K")
}

// Set changes the label and shows it at once.
func (sp *Spinner) Set(label string) {
	if sp == nil || sp.w == nil {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.label != label && sp.stop != nil {
		sp.label = label
		sp.draw()
	}
}

// Stop erases the indicator; later calls do nothing.
func (sp *Spinner) Stop() {
	if sp == nil || sp.w == nil {
		return
	}
	sp.mu.Lock()
	stop := sp.stop
	sp.stop = nil
	sp.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-sp.done
	sp.mu.Lock()
	_, _ = io.WriteString(sp.w, "\r\x1b[K\x1b[?25h")
	sp.mu.Unlock()
}
