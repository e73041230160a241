package mdstream

import (
	"bytes"
	"strings"
)

// splitter cuts Markdown arriving in pieces into blocks: a paragraph, list, table or quote ends
// at a blank line, a heading at the end of its line, a fenced code block at its closing fence
// (blank lines inside a fence belong to it). It scans each line once.
type splitter struct {
	buf     []byte // the open block and what is not scanned yet; blank lines between blocks are dropped
	scanned int    // buf[:scanned] is complete lines of the open block
	content bool   // the open block has a non-blank line
	fence   string // the open fence ("```", "~~~~", ...), "" outside a fence
}

// feed adds text and calls emit for every block it completes.
func (s *splitter) feed(text string, emit func(block string)) {
	s.buf = append(s.buf, text...)
	for {
		nl := bytes.IndexByte(s.buf[s.scanned:], '\n')
		if nl < 0 {
			return
		}
		start, end := s.scanned, s.scanned+nl+1
		line := string(s.buf[start:end])
		trimmed := strings.TrimSpace(line)
		switch {
		case s.fence != "":
			s.scanned = end
			if closesFence(trimmed, s.fence) {
				s.fence = ""
				s.cut(end, emit)
			}
		case trimmed == "":
			s.cut(start, emit)
			s.drop(end - start)
		case isHeading(line):
			s.cut(start, emit)
			s.scanned = end - start
			s.content = true
			s.cut(end-start, emit)
		default:
			if f := openingFence(line); f != "" {
				s.cut(start, emit)
				s.fence = f
				end -= start
			}
			s.scanned = end
			s.content = true
		}
	}
}

// cut emits buf[:end] as a block if it has content, and keeps the rest.
func (s *splitter) cut(end int, emit func(string)) {
	if s.content && end > 0 {
		emit(string(s.buf[:end]))
	}
	s.drop(end)
	s.content = false
}

func (s *splitter) drop(n int) {
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	s.scanned = max(0, s.scanned-n)
}

// rest is the open block: its complete lines and the line still arriving.
func (s *splitter) rest() string { return string(s.buf) }

// openBlock reports whether rest holds visible text.
func (s *splitter) openBlock() bool {
	return s.content || strings.TrimSpace(string(s.buf[s.scanned:])) != ""
}

func isHeading(line string) bool {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 {
		return false
	}
	n := len(l) - len(strings.TrimLeft(l, "#"))
	if n < 1 || n > 6 {
		return false
	}
	rest := l[n:]
	return rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

func openingFence(line string) string {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 || len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return ""
	}
	n := len(l) - len(strings.TrimLeft(l, l[:1]))
	if n < 3 {
		return ""
	}
	if l[0] == '`' && strings.Contains(l[n:], "`") {
		return "" // an inline code span, not a fence
	}
	return l[:n]
}

func closesFence(trimmed, fence string) bool {
	if !strings.HasPrefix(trimmed, fence) {
		return false
	}
	return strings.Trim(trimmed, fence[:1]) == ""
}
