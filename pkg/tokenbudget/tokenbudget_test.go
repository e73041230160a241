package tokenbudget_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/tokenbudget"
)

func TestEstimateText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("x", 400), 100},
		{"不審なDNSクエリ", 6 + 1}, // 6 CJK/kana runes, "DNS" one token
		{"Привет", 3},        // 6 two-byte runes
		{"😀😀", 2},
		// ASCII runs longer than eight bytes around non-ASCII ones.
		{strings.Repeat("a", 17) + "日本" + strings.Repeat("b", 15), (17+15+3)/4 + 2},
	}
	for _, tc := range tests {
		if got := tokenbudget.EstimateText(tc.in); got != tc.want {
			t.Errorf("EstimateText(%q) = %d, want %d", tc.in, got, tc.want)
		}
		if got := tokenbudget.EstimateBytes([]byte(tc.in)); got != tokenbudget.EstimateText(tc.in) {
			t.Errorf("EstimateBytes(%q) = %d, differs from EstimateText", tc.in, got)
		}
	}
}

func TestEstimateContentKinds(t *testing.T) {
	t.Parallel()
	text := genai.NewContentFromText(strings.Repeat("abcd", 25), genai.RoleUser)
	if got := tokenbudget.EstimateContent(text); got != tokenbudget.ContentOverhead+tokenbudget.PartOverhead+25 {
		t.Fatalf("text content = %d", got)
	}
	call := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{genai.NewPartFromFunctionCall("lookup_ip", map[string]any{"ip": "198.51.100.7"})}}
	resp := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse("lookup_ip", map[string]any{"asn": 64500, "country": "NL"})}}
	img := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromBytes(make([]byte, 600<<10), "image/png")}}
	jsonBlob := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromBytes([]byte(strings.Repeat("x", 4000)), "application/json")}}
	for name, tc := range map[string]struct {
		c        *genai.Content
		min, max int
	}{
		"call":       {call, 8, 20},
		"response":   {resp, 8, 20},
		"image":      {img, 3 * tokenbudget.ImageTokens, 3*tokenbudget.ImageTokens + 10},
		"json bytes": {jsonBlob, 1000, 1010},
	} {
		if got := tokenbudget.EstimateContent(tc.c); got < tc.min || got > tc.max {
			t.Errorf("%s: %d, want %d..%d", name, got, tc.min, tc.max)
		}
	}
	if tokenbudget.EstimateContent(nil) != 0 || tokenbudget.EstimateContents([]*genai.Content{text, nil, text}) != 2*tokenbudget.EstimateContent(text) {
		t.Fatal("EstimateContents does not sum")
	}
}

func TestCalibrator(t *testing.T) {
	t.Parallel()
	var c tokenbudget.Calibrator
	if c.Ratio() != 1 || c.Tokens(100) != 100 || c.Raw(100) != 100 {
		t.Fatal("zero calibrator is not the identity")
	}
	c.Observe(50, 10) // too small to learn from
	if c.Samples() != 0 {
		t.Fatal("learnt from a tiny request")
	}
	c.Observe(1500, 1000)
	if c.Ratio() != 1.5 {
		t.Fatalf("first observation: %v", c.Ratio())
	}
	for range 50 {
		c.Observe(1000, 1000)
	}
	if r := c.Ratio(); r < 0.99 || r > 1.01 {
		t.Fatalf("does not converge: %v", r)
	}
	c.Observe(100_000, 1000) // absurd: clamped
	if r := c.Ratio(); r > tokenbudget.MaxRatio {
		t.Fatalf("not clamped: %v", r)
	}
	for range 50 {
		c.Observe(10, 1000)
	}
	if r := c.Ratio(); r < tokenbudget.MinRatio {
		t.Fatalf("not clamped below: %v", r)
	}
	c.AtLeast(2000, 1000)
	if c.Ratio() != 2 || c.Tokens(10) != 20 || c.Raw(20) != 10 {
		t.Fatalf("AtLeast: %v", c.Ratio())
	}
}

// transcript builds n turns: a question, sometimes a function call and its response, and an
// answer, with random sizes.
func transcript(rng *rand.Rand, n int) []*genai.Content {
	var out []*genai.Content
	for i := range n {
		out = append(out, genai.NewContentFromText(fmt.Sprintf("question %d %s", i, strings.Repeat("q", rng.IntN(800))), genai.RoleUser))
		for k := range rng.IntN(3) {
			name := fmt.Sprintf("tool_%d_%d", i, k)
			out = append(out,
				&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{genai.NewPartFromFunctionCall(name, map[string]any{"arg": strings.Repeat("a", rng.IntN(200))})}},
				&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse(name, map[string]any{"out": strings.Repeat("r", rng.IntN(2000))})}})
		}
		out = append(out, genai.NewContentFromText(fmt.Sprintf("answer %d %s", i, strings.Repeat("a", rng.IntN(1500))), genai.RoleModel))
	}
	return out
}

// checkWindow asserts the transcript rules on contents[start:].
func checkWindow(t *testing.T, contents []*genai.Content, start int) {
	t.Helper()
	if start == len(contents) {
		return
	}
	if !tokenbudget.IsTurnStart(contents[start]) {
		t.Fatalf("window starts at %d, not a real user message: %+v", start, contents[start].Parts[0])
	}
	open := map[string]bool{}
	for _, c := range contents[start:] {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				open[p.FunctionCall.Name] = true
			}
			if p.FunctionResponse != nil {
				if !open[p.FunctionResponse.Name] {
					t.Fatalf("response %s without its call in the window", p.FunctionResponse.Name)
				}
				delete(open, p.FunctionResponse.Name)
			}
		}
	}
	if len(open) > 0 {
		t.Fatalf("calls without responses: %v", open)
	}
}

func TestLedgerWindow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	contents := transcript(rng, 300)
	var l tokenbudget.Ledger
	l.Sync(contents, len(contents))
	if l.Len() != len(contents) || l.Sum(0, len(contents)) != tokenbudget.EstimateContents(contents) {
		t.Fatalf("ledger sums %d, want %d", l.Sum(0, len(contents)), tokenbudget.EstimateContents(contents))
	}
	for range 500 {
		from := rng.IntN(len(contents))
		avail := rng.IntN(20_000)
		s := l.Window(from, avail)
		if s < from || s > len(contents) {
			t.Fatalf("Window(%d, %d) = %d", from, avail, s)
		}
		checkWindow(t, contents, s)
		if got := tokenbudget.EstimateContents(contents[s:]); got > avail {
			t.Fatalf("window [%d:] estimated %d > %d", s, got, avail)
		}
		// Maximal: the previous turn start (at or after from) would not fit.
		for p := s - 1; p >= from; p-- {
			if tokenbudget.IsTurnStart(contents[p]) {
				if tokenbudget.EstimateContents(contents[p:]) <= avail {
					t.Fatalf("window [%d:] could have started at %d", s, p)
				}
				break
			}
		}
		end := l.ChunkEnd(from, len(contents), avail)
		if end <= from {
			t.Fatalf("ChunkEnd(%d) = %d", from, end)
		}
		if end < len(contents) && !tokenbudget.IsTurnStart(contents[end]) {
			t.Fatalf("chunk ends at %d, inside a turn", end)
		}
	}
}

func TestLedgerSyncFollowsChanges(t *testing.T) {
	t.Parallel()
	contents := transcript(rand.New(rand.NewPCG(3, 4)), 20)
	var l tokenbudget.Ledger
	l.Sync(contents, 10)
	// Contents after the settled ones may change in place (redaction): re-estimated.
	contents[15].Parts[0].Text = strings.Repeat("z", 4000)
	l.Sync(contents, len(contents))
	if l.Sum(0, len(contents)) != tokenbudget.EstimateContents(contents) {
		t.Fatal("provisional estimate not refreshed")
	}
	// Appending is incremental; replacing a content is noticed by identity.
	more := append(contents, genai.NewContentFromText("new question", genai.RoleUser))
	l.Sync(more, len(more))
	replaced := append([]*genai.Content(nil), more...)
	replaced[3] = genai.NewContentFromText(strings.Repeat("y", 8000), genai.RoleModel)
	l.Sync(replaced, len(replaced))
	if l.Sum(0, l.Len()) != tokenbudget.EstimateContents(replaced) {
		t.Fatal("replaced content not re-estimated")
	}
	l.Sync(replaced[:5], 5)
	if l.Len() != 5 || l.Sum(0, 5) != tokenbudget.EstimateContents(replaced[:5]) {
		t.Fatal("shortened transcript not followed")
	}
}

func TestIsTurnStart(t *testing.T) {
	t.Parallel()
	fr := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse("f", map[string]any{})}}
	mixed := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromText("and"), genai.NewPartFromFunctionResponse("f", map[string]any{})}}
	for name, tc := range map[string]struct {
		c    *genai.Content
		want bool
	}{
		"question": {genai.NewContentFromText("hi", genai.RoleUser), true},
		"no role":  {genai.NewContentFromText("hi", ""), true},
		"model":    {genai.NewContentFromText("hi", genai.RoleModel), false},
		"response": {fr, false},
		"mixed":    {mixed, false},
		"empty":    {&genai.Content{Role: genai.RoleUser}, false},
		"nil":      {nil, false},
	} {
		if got := tokenbudget.IsTurnStart(tc.c); got != tc.want {
			t.Errorf("%s: %v", name, got)
		}
	}
}

// BenchmarkEstimateText measures the estimator's throughput on ASCII-heavy text (alert JSON and
// answers) and on Japanese text.
func BenchmarkEstimateText(b *testing.B) {
	ascii := strings.Repeat(`{"Type":"Trojan:EC2/DropPoint!DNS","Severity":8,"Resource":{"InstanceId":"i-99999999"}} `, 12_000)
	mixed := strings.Repeat("不審な DNS クエリが i-99999999 から送信されました。調査してください。 ", 20_000)
	for _, tc := range []struct{ name, s string }{{"ascii", ascii}, {"japanese", mixed}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.s)))
			for b.Loop() {
				tokenbudget.EstimateText(tc.s)
			}
		})
	}
}

func BenchmarkLedgerWindow(b *testing.B) {
	contents := transcript(rand.New(rand.NewPCG(5, 6)), 10_000)
	var l tokenbudget.Ledger
	l.Sync(contents, len(contents))
	b.ResetTimer()
	for b.Loop() {
		l.Sync(contents, len(contents))
		l.Window(0, 200_000)
	}
}
