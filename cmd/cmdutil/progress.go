package cmdutil

import "sync"

// ProgressLine is a progress line on the status line (stderr) that something long updates, such
// as a Batch API job waited for; nothing is drawn unless stderr is a terminal. Show may be called
// from any goroutine.
type ProgressLine struct {
	ios  *IOStreams
	keep bool
	mu   sync.Mutex
	last string
}

// NewProgressLine returns a progress line on ios's status line. With keep, Stop leaves the last
// line shown on the screen (as a line of stderr) instead of erasing it.
func NewProgressLine(ios *IOStreams, keep bool) *ProgressLine {
	return &ProgressLine{ios: ios, keep: keep}
}

// Show replaces the line with text.
func (p *ProgressLine) Show(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = text
	p.ios.ShowProgressLine(text)
}

// Stop takes the line away; with keep, its last text stays on a terminal, where it was drawn
// (in a pipe nothing was, and nothing is printed).
func (p *ProgressLine) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ios.StopProgressIndicator()
	if p.keep && p.last != "" && p.ios.StderrTTY {
		p.ios.Notice(p.last)
	}
}
