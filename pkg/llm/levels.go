package llm

import (
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"
)

// Thinking levels move under a client's feet: a model released after this program (Gemini 4
// refuses MINIMAL and offers XHIGH, as third parties report) may not take the level a request
// names. The API's 400 names the levels it supports; the client then asks once more at the
// nearest of them and remembers them for the model, so every later request of the process goes
// out at a level the model takes.

// levelOrder ranks the thinking levels, lowest first (XHIGH: Gemini 4's level above HIGH).
var levelOrder = []genai.ThinkingLevel{genai.ThinkingLevelMinimal, genai.ThinkingLevelLow, genai.ThinkingLevelMedium, genai.ThinkingLevelHigh, "XHIGH"}

// supportedLevels reads "Supported levels: LOW, MEDIUM, HIGH" (or "supported thinking levels
// are ...") from the API's message.
var supportedLevels = regexp.MustCompile(`(?i)supported (?:thinking )?levels?(?: are| is)?:?\s*\[?([A-Z_]+(?:\s*(?:,|and|or)\s*[A-Z_]+)*)`)

var levelWord = regexp.MustCompile(`[A-Za-z_]+`)

// allowedLevels reads from a 400 refusing a thinking level the levels the model takes.
func allowedLevels(err error) ([]genai.ThinkingLevel, bool) {
	var ae genai.APIError
	if !errors.As(err, &ae) || ae.Code != http.StatusBadRequest || !strings.Contains(strings.ToLower(ae.Message), "level") {
		return nil, false
	}
	m := supportedLevels.FindStringSubmatch(ae.Message)
	if m == nil {
		return nil, false
	}
	var out []genai.ThinkingLevel
	for _, w := range levelWord.FindAllString(m[1], -1) {
		l := genai.ThinkingLevel(strings.ToUpper(w))
		if strings.EqualFold(w, "and") || strings.EqualFold(w, "or") || slices.Contains(out, l) {
			continue
		}
		out = append(out, l)
	}
	return out, len(out) > 0
}

// nearest is the level of offered closest to want: the lowest one at or above it, else the
// highest one below (an unknown word: the lowest offered).
func nearest(offered []genai.ThinkingLevel, want genai.ThinkingLevel) genai.ThinkingLevel {
	rank := func(l genai.ThinkingLevel) int { return slices.Index(levelOrder, l) }
	r := rank(want)
	best, below := genai.ThinkingLevel(""), genai.ThinkingLevel("")
	for _, l := range offered {
		switch lr := rank(l); {
		case lr < 0:
		case lr >= r && (best == "" || lr < rank(best)):
			best = l
		case lr < r && (below == "" || lr > rank(below)):
			below = l
		}
	}
	switch {
	case r < 0 && len(offered) > 0:
		return offered[0]
	case best != "":
		return best
	case below != "":
		return below
	}
	return want
}

// learnedLevels are the levels the API said each model takes.
type learnedLevels struct {
	mu sync.Mutex
	m  map[string][]genai.ThinkingLevel
}

func (l *learnedLevels) learn(model string, levels []genai.ThinkingLevel) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string][]genai.ThinkingLevel{}
	}
	l.m[model] = levels
}

// adjust returns config with its thinking level moved to one the model was said to take (config
// itself when nothing needs to change; the caller's config is never changed).
func (l *learnedLevels) adjust(model string, config *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	if config == nil || config.ThinkingConfig == nil || config.ThinkingConfig.ThinkingLevel == "" {
		return config
	}
	l.mu.Lock()
	levels, ok := l.m[model]
	l.mu.Unlock()
	if !ok || slices.Contains(levels, config.ThinkingConfig.ThinkingLevel) {
		return config
	}
	return withLevel(config, nearest(levels, config.ThinkingConfig.ThinkingLevel))
}

// relearn handles a try's error: when it is the API refusing the request's thinking level and
// naming the ones it takes, they are remembered and the config to ask with once more is
// returned; else nil.
func (l *learnedLevels) relearn(model string, config *genai.GenerateContentConfig, err error) *genai.GenerateContentConfig {
	if config == nil || config.ThinkingConfig == nil || config.ThinkingConfig.ThinkingLevel == "" {
		return nil
	}
	levels, ok := allowedLevels(err)
	if !ok || slices.Contains(levels, config.ThinkingConfig.ThinkingLevel) {
		return nil
	}
	l.learn(model, levels)
	return withLevel(config, nearest(levels, config.ThinkingConfig.ThinkingLevel))
}

func withLevel(config *genai.GenerateContentConfig, level genai.ThinkingLevel) *genai.GenerateContentConfig {
	c := *config
	tc := *config.ThinkingConfig
	tc.ThinkingLevel = level
	c.ThinkingConfig = &tc
	return &c
}

// ThinkingLevels returns the levels the API said model takes, when it said so in this
// client's lifetime.
func (c *Client) ThinkingLevels(model string) ([]genai.ThinkingLevel, bool) {
	c.levels.mu.Lock()
	defer c.levels.mu.Unlock()
	l, ok := c.levels.m[model]
	return slices.Clone(l), ok
}
