package mdstream_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// countWriter counts bytes, standing in for the terminal.
type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// BenchmarkFirstChunk is the renderer's part of Enter-to-first-token: from the first chunk's
// arrival to its bytes being written, on a renderer built once per chat.
func BenchmarkFirstChunk(b *testing.B) {
	r := newRenderer(b, 100, 40)
	var w countWriter
	b.ReportAllocs()
	for b.Loop() {
		s := r.Stream(&w)
		s.Write("The instance **i-0abc** talked to a known")
	}
}

// BenchmarkNewRenderer is what building the renderer costs (done once per chat, not per answer).
func BenchmarkNewRenderer(b *testing.B) {
	for b.Loop() {
		newRenderer(b, 100, 40)
	}
}

// longAnswer is a Markdown answer of about n lines: headings, paragraphs, lists, code blocks.
func longAnswer(n int) string {
	var b strings.Builder
	lines := 0
	for i := 0; lines < n; i++ {
		fmt.Fprintf(&b, "## Finding %d\n\n", i)
		fmt.Fprintf(&b, "The host **web-%d** contacted `198.51.100.%d` on port 443 after a failed login; the\nprocess tree shows *sshd* spawning a shell, which is unusual for this role.\n\n", i, i%250)
		fmt.Fprintf(&b, "- first seen 2026-11-2%dT10:00:00Z\n- user: svc-deploy\n- count: %d\n\n", i%10, i*3)
		fmt.Fprintf(&b, "```sh\ngrep -r 'Failed password' /var/log/auth.log | tail -n %d\n```\n\n", i)
		lines += 16
	}
	return b.String()
}

// chunks splits text like a model stream: pieces of about 60 bytes.
func chunks(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(60, len(text))
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// BenchmarkAnswer2000Lines renders a 2,000-line answer streamed in model-sized chunks; compare
// with BenchmarkAnswer2000LinesRaw (what --raw does with the same chunks).
func BenchmarkAnswer2000Lines(b *testing.B) {
	r := newRenderer(b, 100, 40)
	cs := chunks(longAnswer(2000))
	var w countWriter
	b.ReportAllocs()
	for b.Loop() {
		s := r.Stream(&w)
		for _, c := range cs {
			s.Write(c)
		}
		_ = s.Close()
	}
}

func BenchmarkAnswer2000LinesRaw(b *testing.B) {
	cs := chunks(longAnswer(2000))
	var w countWriter
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cs {
			_, _ = io.WriteString(&w, termsafe.String(c))
		}
	}
}

// BenchmarkAnswer2000LinesBlock is the longest the renderer holds one chunk back: a chunk
// completing the biggest block (a heading, paragraph, list or code block) of the answer.
func BenchmarkAnswer2000LinesBlock(b *testing.B) {
	r := newRenderer(b, 100, 40)
	block := "The host **web-1** contacted `198.51.100.1` on port 443 after a failed login; the\nprocess tree shows *sshd* spawning a shell, which is unusual for this role.\n\n"
	var w countWriter
	for b.Loop() {
		s := r.Stream(&w)
		s.Write(block)
	}
}

// BenchmarkAnswer2000LinesAtOnce is the same answer arriving in one piece; compare with
// BenchmarkAnswer2000LinesRaw.
func BenchmarkAnswer2000LinesAtOnce(b *testing.B) {
	r := newRenderer(b, 100, 40)
	text := longAnswer(2000)
	var w countWriter
	b.ReportAllocs()
	for b.Loop() {
		s := r.Stream(&w)
		s.Write(text)
		_ = s.Close()
	}
}
