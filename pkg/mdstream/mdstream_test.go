package mdstream_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

const answer = `## Assessment
The instance **i-0abc** talked to a known *crypto-mining* pool. This is a long sentence that goes on for a while so that it has to wrap on an eighty column terminal.

### Evidence
- outbound traffic on port 3333
- DNS lookups of pool.example

` + "```" + `sh
aws ec2 describe-instances

aws ec2 stop-instances
` + "```" + `

1. Isolate the host.
2. Rotate its credentials.
`

func newRenderer(t testing.TB, width, height int) *mdstream.Renderer {
	t.Helper()
	r, err := mdstream.NewRenderer(mdstream.Options{Width: width, Height: height})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func screenOf(width int, out string) string {
	v := newVT(width)
	_, _ = v.Write([]byte(out))
	return v.text()
}

func TestRenderHeadingsAndSpacing(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, 80, 40)
	screen := screenOf(80, r.Render(answer))
	for _, want := range []string{"Assessment", "Evidence", "i-0abc", "• outbound traffic", "aws ec2 stop-instances", "Isolate the host"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	for _, bad := range []string{"##", "**", "```"} {
		if strings.Contains(screen, bad) {
			t.Errorf("screen shows Markdown syntax %q:\n%s", bad, screen)
		}
	}
	if strings.HasPrefix(screen, "\n") || strings.Contains(screen, "\n\n\n") {
		t.Errorf("blocks not separated by exactly one blank line:\n%s", screen)
	}
	// Blank lines: between heading and paragraph, paragraph and heading, heading and list,
	// list and code, code and list; the one inside the code block is kept.
	if got := strings.Count(screen, "\n\n"); got != 6 {
		t.Errorf("%d blank lines, want 6:\n%s", got, screen)
	}
	if !strings.Contains(screen, "Assessment\n\n  The instance") {
		t.Errorf("heading and paragraph not one blank line apart:\n%s", screen)
	}
}

func TestStreamEndsAsRendered(t *testing.T) {
	t.Parallel()
	for _, size := range []int{1, 2, 3, 7, 16, 64, len(answer)} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			t.Parallel()
			r := newRenderer(t, 80, 40)
			want := screenOf(80, r.Render(answer))
			var out bytes.Buffer
			s := r.Stream(&out)
			for i := 0; i < len(answer); i += size {
				s.Write(answer[i:min(i+size, len(answer))])
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got := screenOf(80, out.String()); got != want {
				t.Fatalf("streamed screen:\n%s\nrendered screen:\n%s", got, want)
			}
			if !strings.HasSuffix(out.String(), "\n") {
				t.Fatal("answer does not end with a newline")
			}
		})
	}
}

func TestStreamShowsOpenParagraphAtOnce(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, 80, 40)
	var out bytes.Buffer
	s := r.Stream(&out)
	s.Write("## Assess")
	if !strings.Contains(screenOf(80, out.String()), "## Assess") {
		t.Fatalf("the open line is not shown: %q", out.String())
	}
	s.Write("ment\nThe first")
	screen := screenOf(80, out.String())
	if !strings.Contains(screen, "Assessment") || strings.Contains(screen, "## ") || !strings.Contains(screen, "The first") {
		t.Fatalf("heading not rendered once complete, or the paragraph not shown:\n%s", screen)
	}
	s.Write(" words **and more**")
	if !strings.Contains(screenOf(80, out.String()), "The first words **and more**") {
		t.Fatalf("open paragraph not shown as it arrives:\n%s", screenOf(80, out.String()))
	}
	_ = s.Close()
	screen = screenOf(80, out.String())
	if !strings.Contains(screen, "The first words and more") || strings.Contains(screen, "**") {
		t.Fatalf("closed paragraph not rendered:\n%s", screen)
	}
}

func TestStreamLongParagraphIsKept(t *testing.T) {
	t.Parallel()
	// A paragraph taller than the screen cannot be replaced (its start scrolled away): the plain
	// text stays, and the cursor never moves up past the screen.
	r := newRenderer(t, 40, 5)
	var out bytes.Buffer
	s := r.Stream(&out)
	var words []string
	for i := range 60 {
		words = append(words, fmt.Sprintf("word%02d", i))
	}
	for _, w := range words {
		s.Write(w + " ")
	}
	s.Write("\n\nnext **block**\n")
	_ = s.Close()
	for _, m := range regexp.MustCompile(`\x1b\[(\d+)A`).FindAllStringSubmatch(out.String(), -1) {
		if n, _ := strconv.Atoi(m[1]); n >= 5 {
			t.Fatalf("cursor moved up %d rows on a 5-row screen", n)
		}
	}
	screen := screenOf(40, out.String())
	if !strings.Contains(screen, "word00") || !strings.Contains(screen, "word59") || !strings.Contains(screen, "next block") {
		t.Fatalf("screen:\n%s", screen)
	}
	for _, line := range strings.Split(screen, "\n") {
		if len(line) > 40 {
			t.Fatalf("line wider than the screen: %q", line)
		}
	}
	if strings.Contains(screen, "\n\n\n") || !strings.Contains(screen, "word59\n\n  next block") {
		t.Fatalf("not one blank line between blocks:\n%s", screen)
	}
}

func TestStreamWrapsAtWords(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, 30, 40)
	var out bytes.Buffer
	s := r.Stream(&out)
	for _, c := range []string{"alpha beta gam", "ma delta epsilon zeta eta theta"} {
		s.Write(c)
	}
	screen := screenOf(30, out.String())
	for _, w := range []string{"alpha", "gamma", "epsilon", "theta"} {
		if !regexp.MustCompile(`(^|\s)` + w + `(\s|$)`).MatchString(screen) {
			t.Fatalf("word %q cut while open:\n%s", w, screen)
		}
	}
}

func TestStreamInterrupt(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, 80, 40)
	t.Run("mid-line", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		s := r.Stream(&out)
		s.Write("partial-start ")
		_ = s.Interrupt()
		if !strings.HasSuffix(out.String(), "partial-start \n") {
			t.Fatalf("the cut line is not ended: %q", out.String())
		}
	})
	t.Run("at a line start", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		s := r.Stream(&out)
		s.Write("# Done\n")
		_ = s.Interrupt()
		if !strings.HasSuffix(out.String(), "\n\r\x1b[K") {
			t.Fatalf("the echoed ^C is not cleared: %q", out.String())
		}
	})
}

func TestStreamSanitises(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, 80, 40)
	var out bytes.Buffer
	s := r.Stream(&out)
	s.Write("clear\x1b[2J\x1b]0;title\x07 screen")
	_ = s.Close()
	if strings.Contains(out.String(), "2J") || strings.Contains(out.String(), "title") {
		t.Fatalf("escape sequences from the model reached the terminal: %q", out.String())
	}
}

// FuzzStreamEndsAsRendered: however an answer is cut into chunks, the screen at the end is the
// whole answer rendered at once.
func FuzzStreamEndsAsRendered(f *testing.F) {
	f.Add(answer, uint8(5))
	f.Add("# a\nb\n\n```\nc\n\nd\n```\ne", uint8(1))
	f.Add("para\n## head\n- x\n\n~~~\ncode\n~~~\n", uint8(3))
	f.Add("Title\n=====\n\n> quote\n> more\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", uint8(2))
	r := newRenderer(f, 80, 10000)
	f.Fuzz(func(t *testing.T, md string, size uint8) {
		if len(md) > 2000 || strings.Contains(md, "\r") {
			t.Skip()
		}
		md = termsafe.String(md) // as Stream does
		n := int(size%16) + 1
		want := screenOf(80, r.Render(md))
		var out bytes.Buffer
		s := r.Stream(&out)
		for i := 0; i < len(md); i += n {
			s.Write(md[i:min(i+n, len(md))])
		}
		_ = s.Close()
		if got := screenOf(80, out.String()); got != want {
			t.Fatalf("streamed screen:\n%s\nrendered screen:\n%s", got, want)
		}
	})
}

// TestStreamBurstIsShownPlain: text arriving far faster than a model streams (many blocks in
// one write) is rendered for the first blocks and shown plain after, all of it, one blank line
// between blocks; the next write renders again.
func TestStreamBurstIsShownPlain(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, 80, 40)
	var burst strings.Builder
	for i := range 60 {
		fmt.Fprintf(&burst, "Paragraph **%d** of the burst.\n\n", i)
	}
	var out bytes.Buffer
	s := r.Stream(&out)
	s.Write(burst.String())
	s.Write("## After\n\nlast **one**\n")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	screen := screenOf(80, out.String())
	if n := strings.Count(screen, " of the burst."); n != 60 {
		t.Fatalf("%d of 60 paragraphs shown:\n%s", n, screen)
	}
	if !strings.Contains(screen, "Paragraph 0 of the burst.") || !strings.Contains(screen, "Paragraph **59** of the burst.") {
		t.Fatalf("want the first blocks rendered and the last ones plain:\n%s", screen)
	}
	if strings.Contains(screen, "## After") || strings.Contains(screen, "last **one**") || strings.Contains(screen, "\n\n\n") {
		t.Fatalf("the write after the burst is not rendered, or blocks are not one blank line apart:\n%s", screen)
	}
}
