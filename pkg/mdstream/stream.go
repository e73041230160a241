package mdstream

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Stream writes one answer arriving in pieces to a terminal. Use it from one goroutine.
type Stream struct {
	r *Renderer
	w io.Writer

	sp     splitter
	blocks int // blocks written so far
	err    error

	// The open block, shown as plain text: shown bytes of sp.rest() are on screen, over rows
	// rows, the cursor at column col of the last one (0: nothing shown, or at a line start).
	shown  int
	rows   int
	col    int
	word   []rune // the word being written on the current row, for word wrapping
	wordW  int
	sepOut bool // the blank line before the open block is written

	// rendered counts the blocks rendered during the current Write (see burstBlocks).
	rendered int
}

// burstBlocks is how many blocks one Write renders. A model streams a block or two per
// chunk; text arriving far faster than that (a long answer at once) would keep the terminal
// waiting on the renderer (about 0.1 ms a line), so the blocks past this many are shown as
// plain text instead, as fast as --raw.
const burstBlocks = 8

// Stream starts an answer written to w.
func (r *Renderer) Stream(w io.Writer) *Stream { return &Stream{r: r, w: w} }

// Write takes the next piece of the answer. Text is sanitised with termsafe.
func (s *Stream) Write(chunk string) {
	chunk = termsafe.String(chunk)
	if chunk == "" {
		return
	}
	s.rendered = 0
	s.sp.feed(chunk, s.block)
	s.showOpen()
}

// Close renders what is still open and leaves the cursor at the start of a line.
func (s *Stream) Close() error {
	if rest := s.sp.rest(); strings.TrimSpace(rest) != "" {
		s.block(rest)
	}
	s.sp = splitter{}
	return s.err
}

// Interrupt ends an answer cut short: the open block stays as shown and the line it was on is
// ended, so a notice printed next starts on a line of its own.
func (s *Stream) Interrupt() error {
	switch {
	case s.col > 0:
		s.out("\n")
	default:
		// At a line start, where the terminal echoed ^C: clear it.
		s.out("\r\x1b[K")
	}
	s.sp = splitter{}
	s.shown, s.rows, s.col = 0, 0, 0
	return s.err
}

// block writes a completed block in place of its plain text.
func (s *Stream) block(md string) {
	if s.rendered >= burstBlocks {
		s.plainBlock(md)
		return
	}
	s.rendered++
	rendered := s.r.renderBlock(md)
	if s.shown > 0 {
		if s.rows >= s.r.height {
			// Part of the plain text has scrolled away: it cannot be replaced, so it stays.
			if s.col > 0 {
				s.out("\n")
			}
			s.endBlock()
			return
		}
		var b strings.Builder
		b.WriteString("\r")
		if s.rows > 1 {
			b.WriteString("\x1b[" + strconv.Itoa(s.rows-1) + "A")
		}
		b.WriteString("\x1b[J")
		s.out(b.String())
	}
	if rendered == "" {
		s.shown, s.rows, s.col = 0, 0, 0
		return
	}
	s.separate()
	s.out(rendered)
	s.endBlock()
}

func (s *Stream) endBlock() {
	s.blocks++
	s.shown, s.rows, s.col = 0, 0, 0
	s.word, s.wordW = s.word[:0], 0
	s.sepOut = false
}

// separate writes the blank line between the previous block and the next.
func (s *Stream) separate() {
	if s.blocks > 0 && !s.sepOut {
		s.out("\n")
	}
	s.sepOut = true
}

// showOpen writes the open block's new text as plain text, wrapped at word boundaries.
func (s *Stream) showOpen() {
	rest := s.sp.rest()
	if s.shown >= len(rest) || !s.sp.openBlock() {
		return
	}
	text := rest[s.shown:]
	s.shown = len(rest)
	s.writePlain(text)
}

// plainBlock ends a completed block as plain text: what of it is not on screen yet is written
// as the open block's text is, and the block is closed.
func (s *Stream) plainBlock(md string) {
	text := ""
	if s.shown < len(md) {
		text = md[s.shown:]
	}
	s.writePlain(strings.TrimRight(text, "\n"))
	if s.col > 0 {
		s.out("\n")
	}
	s.endBlock()
}

// writePlain writes text after what the open block shows, wrapped at word boundaries.
func (s *Stream) writePlain(text string) {
	var b strings.Builder
	if s.rows == 0 {
		s.separate()
		b.WriteString(strings.Repeat(" ", margin))
		s.rows, s.col = 1, margin
	}
	limit := s.r.limit
	for len(text) > 0 {
		r, size := utf8.DecodeRuneInString(text)
		text = text[size:]
		switch r {
		case '\r':
			continue
		case '\n':
			b.WriteString("\n" + strings.Repeat(" ", margin))
			s.rows++
			s.col = margin
			s.word, s.wordW = s.word[:0], 0
			continue
		case '\t':
			r = ' '
		}
		w := runewidth.RuneWidth(r)
		if s.col+w > limit {
			if r != ' ' && s.wordW > 0 && margin+s.wordW+w <= limit && s.col-s.wordW > margin {
				// Move the word begun on this row to the next one.
				b.WriteString("\x1b[" + strconv.Itoa(s.wordW) + "D\x1b[K\n" + strings.Repeat(" ", margin) + string(s.word))
				s.col = margin + s.wordW
			} else {
				b.WriteString("\n" + strings.Repeat(" ", margin))
				s.col = margin
				s.word, s.wordW = s.word[:0], 0
			}
			s.rows++
			if r == ' ' {
				continue
			}
		}
		b.WriteRune(r)
		s.col += w
		if r == ' ' {
			s.word, s.wordW = s.word[:0], 0
		} else {
			s.word = append(s.word, r)
			s.wordW += w
		}
	}
	s.out(b.String())
}

func (s *Stream) out(text string) {
	if text == "" || s.err != nil {
		return
	}
	_, s.err = io.WriteString(s.w, text)
}
