package e2e_test

import (
	"image/color"
	"math"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
)

// TestScreenAnswerColors reads a rendered answer on a terminal with a white background and on
// one with a black background: body text and code are drawn in the terminal's own foreground,
// and every other colour on the terminal's background stands out from it (3:1 at least, the
// least a large or bold text needs to be read).
func TestScreenAnswerColors(t *testing.T) {
	t.Parallel()
	const answer = "## Findings\n\nThe host contacted a known scanner, see [the report](https://example.com/r).\n\n" +
		"```\nnslookup scanner.example\n```\n\n---\n\nBlock the address at the edge.\n"
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}
	for _, tc := range []struct {
		name   string
		fg, bg color.Color
	}{
		{"white background", black, white},
		{"black background", white, black},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A store of its own: with the other case's conversation beside it, the same
			// question would be offered to that conversation and wait for an answer.
			c := answeringCLI(t, func(string) geminitest.Reply { return geminitest.Reply{Text: answer} })
			alertID := c.addAlert("guardduty.json")
			p := c.startScreen(t, 100, "chat", "-a", alertID, "-q", "what happened?")
			p.SetColors(tc.fg, tc.bg)
			if code := p.Wait(t, 60*time.Second); code != 0 {
				t.Fatalf("exit %d:\n%s", code, p.Dump())
			}
			for _, body := range []string{"The host contacted a known scanner", "nslookup scanner.example", "Block the address at the edge."} {
				x, y, ok := p.Find(body)
				if !ok {
					t.Fatalf("%q is not on the screen:\n%s", body, p.Dump())
				}
				for i := range len(body) {
					if fg, bg := p.Colors(x+i, y); fg != nil || bg != nil {
						t.Fatalf("%q is drawn in %v on %v at column %d, not in the terminal's own colours:\n%s", body, fg, bg, x+i, p.Dump())
					}
				}
			}
			_, first, _ := p.Find("Findings")
			_, last, _ := p.Find("Block the address")
			for y := first; y <= last; y++ {
				for x := range 100 {
					fg, bg := p.Colors(x, y)
					if fg == nil || bg != nil {
						continue
					}
					if r := contrast(fg, tc.bg); r < 3 {
						t.Errorf("row %d column %d is drawn in %v, contrast %.2f on the background %v:\n%s", y, x, fg, r, tc.bg, p.Dump())
					}
				}
			}
		})
	}
}

// contrast is WCAG's contrast ratio of two colours, 1 (the same) to 21 (black on white).
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}
