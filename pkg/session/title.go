package session

import (
	"context"
	"strings"
	"unicode"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// MaxTitleWidth is how many display columns a title may take (a Japanese character takes
// two): generated, fallback and typed titles alike are cut to it by one rule,
// format.TruncateWords (a word boundary in spaced scripts, a character boundary elsewhere,
// never inside a grapheme cluster).
const MaxTitleWidth = 60

const titlePrompt = `Generate a chat session title from this user query.

Rules:
- Use the SAME LANGUAGE as the user's query
- For English: 3-5 words, Title Case
- For Chinese/Japanese/Korean: 5-15 characters
- No quotes, no trailing punctuation, no emojis
- Reply with the title only

Query:
`

// generateTitle asks the model for a title of the first question; junk is an error, so the
// caller falls back.
func generateTitle(ctx context.Context, gen llm.Generator, modelName, input string) (string, error) {
	req := titleRequest(modelName, input)
	resp, err := modelcfg.Generate(ctx, gen, modelName, req.Contents, req.Config)
	if err != nil {
		return "", goerr.Wrap(err, "title request failed")
	}
	return titleText(resp)
}

// titleMaxTokens is a title's output allowance, thinking aside.
const titleMaxTokens = 64

// titleRequest is the request for a title of the first question, built for its model
// (modelcfg: the lowest thinking level, with room for it).
func titleRequest(modelName, input string) Request {
	cfg := modelcfg.For(modelName).Auxiliary(titleMaxTokens, 0.2)
	q := input
	if r := []rune(q); len(r) > 2000 {
		q = string(r[:2000])
	}
	return Request{Contents: []*genai.Content{genai.NewContentFromText(titlePrompt+q, genai.RoleUser)}, Config: cfg}
}

// titleText is the model's title in resp, raw; junk is an error.
func titleText(resp *genai.GenerateContentResponse) (string, error) {
	raw := modelcfg.Text(resp)
	// The caller redacts the model's text before cleaning and shortening it: a value cut in
	// half might no longer be recognised.
	if CleanGeneratedTitle(raw) == "" {
		return "", goerr.New("the model returned no usable title")
	}
	return raw, nil
}

// CleanGeneratedTitle tidies a model's title: its first line, without quotes, emoji, markdown
// or trailing punctuation, at most MaxTitleWidth columns. It returns "" for junk.
func CleanGeneratedTitle(raw string) string {
	line := ""
	for _, l := range strings.Split(raw, "\n") {
		if strings.TrimSpace(l) != "" {
			line = l
			break
		}
	}
	line = strings.TrimSpace(line)
	for _, p := range []string{"Title:", "title:", "タイトル:", "タイトル："} {
		line = strings.TrimSpace(strings.TrimPrefix(line, p))
	}
	line = strings.Map(func(r rune) rune {
		switch {
		case isEmoji(r):
			return -1
		case strings.ContainsRune("\"'`“”‘’「」『』*#", r):
			return -1
		}
		return r
	}, line)
	// the same terminal-safe cleaning as every other title (controls, escape sequences,
	// bidirectional overrides)
	line = termsafe.Line(line)
	line = strings.TrimRightFunc(line, func(r rune) bool {
		return unicode.IsPunct(r) && !strings.ContainsRune(")]）", r) || unicode.IsSpace(r)
	})
	if !strings.ContainsFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return ""
	}
	// A title the length of a paragraph is not a title.
	if format.Width(line) > 2*MaxTitleWidth {
		return ""
	}
	return clipTitle(line)
}

func isEmoji(r rune) bool {
	return unicode.Is(unicode.So, r) || r == 0xFE0F || r == 0x200D || (r >= 0x1F000 && r <= 0x1FAFF) || (r >= 0x1F3FB && r <= 0x1F3FF)
}

// FallbackTitle is the first line of the first question, cut to MaxTitleWidth columns.
func FallbackTitle(input string) string {
	line := ""
	for _, l := range strings.Split(input, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	return clipTitle(termsafe.Line(line))
}

// CleanManualTitle makes a user's title one clean line of at most MaxTitleWidth columns.
func CleanManualTitle(t string) string {
	return clipTitle(termsafe.Line(t))
}

// clipTitle cuts a title to MaxTitleWidth columns, "…" marking the cut.
func clipTitle(s string) string { return format.TruncateWords(s, MaxTitleWidth, format.Ellipsis) }
