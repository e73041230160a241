// Package modelcfg builds requests for the model they go to. Gemini models differ in how they
// think: Gemini 3 models always think and take a thinking level (MINIMAL, LOW, MEDIUM, HIGH;
// which ones differs by model), Gemini 2.5 models take a token budget, older ones do not think.
// Thinking tokens count against maxOutputTokens, so a tight output cap can end an answer before
// it has any text; and Gemini 3 should keep its default temperature (1.0: lower values can make
// it loop). Every request alertchat builds asks this package for its thinking configuration:
// the main answers (Main, at the level the user chose or the model's own), and the short
// auxiliary requests (Auxiliary: titles, the same-conversation judgement, summaries, verdict
// suggestions), at the lowest level the model offers with room for that thinking.
//
// Facts (Gemini API documentation, deprecations page, 2026-11): gemini-2.5-flash and
// gemini-2.5-pro shut down on 2026-12-01 and then answer 404; thinkingLevel and
// thinkingBudget together are a 400; gemini-3.8-flash offers LOW, MEDIUM, HIGH (default
// MEDIUM), gemini-3.1-pro LOW, MEDIUM, HIGH (default HIGH), Flash-Lite models MINIMAL up to
// HIGH (default MINIMAL).
package modelcfg

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// DefaultModel is the model alertchat uses unless told otherwise: chosen on 2026-11-26 as the
// newest generally available Gemini 3 model (GA on 2026-09-02), because gemini-2.5-flash, the
// default before, shuts down on 2026-12-01.
const DefaultModel = "gemini-3.8-flash"

// ThinkingLevelXHigh is the level above HIGH that Gemini 4 models offer (third parties
// report low, medium, high and xhigh, and MINIMAL refused); the SDK has no constant for it.
const ThinkingLevelXHigh genai.ThinkingLevel = "XHIGH"

// Levels, lowest first.
var allLevels = []genai.ThinkingLevel{genai.ThinkingLevelMinimal, genai.ThinkingLevelLow, genai.ThinkingLevelMedium, genai.ThinkingLevelHigh}

// LevelValues are the values --thinking takes, lowest first, in lower case: every level some
// model offers (the flag's help, shell completion and the reference are made from them).
func LevelValues() []string {
	var out []string
	for _, l := range append(slices.Clone(allLevels), ThinkingLevelXHigh) {
		out = append(out, strings.ToLower(string(l)))
	}
	return out
}

// Known are the profiles of the models the table names, by name, newest first (the manual's
// table of thinking levels is made from them).
func Known() []Profile {
	out := make([]Profile, 0, len(table))
	for name := range table {
		out = append(out, For(name))
	}
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(b.Model, a.Model) })
	return out
}

// Kind is how a model is told how much to think.
type Kind int

const (
	// Unknown models (tuned models, proxies' names, names the table cannot place) get no
	// thinking configuration unless the user asks for a level.
	Unknown Kind = iota
	// Levels: Gemini 3 and later, thinkingLevel.
	Levels
	// Budget: Gemini 2.5, thinkingBudget (2.5-style configuration only where a user names
	// such a model: Vertex AI may still serve one).
	Budget
	// NoThinking: Gemini 2.0 and older.
	NoThinking
)

// Profile is what alertchat knows of one model's thinking.
type Profile struct {
	// Model is the model's name, without "models/".
	Model string
	Kind  Kind
	// Offered are the levels the model accepts, lowest first (Levels; every level for an
	// Unknown model, which the API decides on). Budget models accept every level too: each
	// maps to a budget.
	Offered []genai.ThinkingLevel
	// Default is the model's own level ("" when it has none, or it is unknown).
	Default genai.ThinkingLevel
	// MinBudget and MaxBudget bound a Budget model's thinkingBudget (0 turns thinking off).
	MinBudget, MaxBudget int32
	// Known is set when the model is in the table (not placed by its name alone).
	Known bool
}

// profile rows: the table of the models alertchat knows.
var (
	flash3    = []genai.ThinkingLevel{genai.ThinkingLevelLow, genai.ThinkingLevelMedium, genai.ThinkingLevelHigh}
	pro3      = flash3
	flashLite = allLevels
	// gemini4 are the levels reported for Gemini 4 models (gemini-4-neon: default HIGH).
	gemini4 = []genai.ThinkingLevel{genai.ThinkingLevelLow, genai.ThinkingLevelMedium, genai.ThinkingLevelHigh, ThinkingLevelXHigh}
)

var table = map[string]Profile{
	"gemini-3.8-flash":       {Kind: Levels, Offered: flash3, Default: genai.ThinkingLevelMedium},
	"gemini-3.7-flash":       {Kind: Levels, Offered: flash3, Default: genai.ThinkingLevelMedium},
	"gemini-3.6-flash":       {Kind: Levels, Offered: flash3, Default: genai.ThinkingLevelMedium},
	"gemini-3.5-flash":       {Kind: Levels, Offered: flash3, Default: genai.ThinkingLevelMedium},
	"gemini-3.1-pro-preview": {Kind: Levels, Offered: pro3, Default: genai.ThinkingLevelHigh},
	"gemini-3.1-pro":         {Kind: Levels, Offered: pro3, Default: genai.ThinkingLevelHigh},
	"gemini-3.5-flash-lite":  {Kind: Levels, Offered: flashLite, Default: genai.ThinkingLevelMinimal},
	"gemini-3.1-flash-lite":  {Kind: Levels, Offered: flashLite, Default: genai.ThinkingLevelMinimal},
	"gemini-3-flash-preview": {Kind: Levels, Offered: allLevels, Default: genai.ThinkingLevelHigh},
	"gemini-3-pro-preview":   {Kind: Levels, Offered: []genai.ThinkingLevel{genai.ThinkingLevelLow, genai.ThinkingLevelHigh}, Default: genai.ThinkingLevelHigh},
	"gemini-2.5-flash":       {Kind: Budget, Offered: allLevels, MinBudget: 0, MaxBudget: 24576},
	"gemini-2.5-flash-lite":  {Kind: Budget, Offered: allLevels, MinBudget: 0, MaxBudget: 24576},
	"gemini-2.5-pro":         {Kind: Budget, Offered: allLevels, MinBudget: 128, MaxBudget: 32768},
}

// geminiName reads "gemini-<major>[.<minor>]-<rest>".
var geminiName = regexp.MustCompile(`^gemini-(\d+)(?:\.(\d+))?-(.+)$`)

// For returns the profile of model ("models/" prefix and all). A model the table does not
// know is placed by its name: gemini-3 and later like the current models of its kind
// (flash-lite, pro, flash), gemini-2.5 by budget, older Gemini models without thinking, the
// "-latest" aliases like the current models; anything else is Unknown.
func For(model string) Profile {
	name := strings.TrimPrefix(strings.TrimSpace(model), "models/")
	if p, ok := table[name]; ok {
		p.Model, p.Known = name, true
		return p
	}
	p := Profile{Model: name}
	switch name {
	case "gemini-flash-latest":
		return withKind(p, "flash")
	case "gemini-flash-lite-latest":
		return withKind(p, "flash-lite")
	case "gemini-pro-latest":
		return withKind(p, "pro")
	}
	m := geminiName.FindStringSubmatch(name)
	if m == nil {
		p.Kind, p.Offered = Unknown, allLevels
		return p
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	switch {
	case major >= 4:
		// Placed by what third parties report of Gemini 4; what the API says when a level is
		// refused corrects it (pkg/llm learns the levels a model names and asks again).
		p.Kind, p.Offered, p.Default = Levels, gemini4, genai.ThinkingLevelHigh
		return p
	case major >= 3:
		return withKind(p, m[3])
	case major == 2 && minor == 5:
		p.Kind, p.Offered, p.MaxBudget = Budget, allLevels, 24576
		if strings.HasPrefix(m[3], "pro") {
			p.MinBudget, p.MaxBudget = 128, 32768
		}
		return p
	default:
		p.Kind = NoThinking
		return p
	}
}

// withKind places a Gemini 3 (or later) model by the kind its name says.
func withKind(p Profile, rest string) Profile {
	p.Kind = Levels
	switch {
	case strings.Contains(rest, "flash-lite"):
		p.Offered, p.Default = flashLite, genai.ThinkingLevelMinimal
	case strings.HasPrefix(rest, "pro"):
		p.Offered, p.Default = pro3, genai.ThinkingLevelHigh
	default:
		p.Offered, p.Default = flash3, genai.ThinkingLevelMedium
	}
	return p
}

// Lowest is the lowest level the model offers ("" for a model that takes none).
func (p Profile) Lowest() genai.ThinkingLevel {
	if p.Kind != Levels || len(p.Offered) == 0 {
		return ""
	}
	return p.Offered[0]
}

// Offers reports whether the model accepts level.
func (p Profile) Offers(level genai.ThinkingLevel) bool { return slices.Contains(p.Offered, level) }

// LevelNames are the offered levels in lower case, lowest first ("low, medium, high").
func (p Profile) LevelNames() string {
	names := make([]string, len(p.Offered))
	for i, l := range p.Offered {
		names[i] = strings.ToLower(string(l))
	}
	return strings.Join(names, ", ")
}

// LevelError is a --thinking value the model does not take.
type LevelError struct {
	Value   string
	Profile Profile
}

func (e *LevelError) Error() string {
	if e.Profile.Kind == NoThinking {
		return fmt.Sprintf("%s does not think: it takes no thinking level (%q)", e.Profile.Model, e.Value)
	}
	return fmt.Sprintf("%s does not offer thinking level %q: it offers %s", e.Profile.Model, e.Value, e.Profile.LevelNames())
}

// ParseLevel reads a user's level (minimal, low, medium, high, xhigh; any case); "" is the model's
// own. A level the model does not offer, or a word that is no level, is a *LevelError naming
// the ones it offers.
func (p Profile) ParseLevel(s string) (genai.ThinkingLevel, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	level := genai.ThinkingLevel(strings.ToUpper(s))
	if !p.Offers(level) {
		return "", &LevelError{Value: s, Profile: p}
	}
	return level, nil
}

// Main is the thinking configuration of a main answer at level ("": none, the model thinks as
// it does by default). A Budget model gets the budget the level
// stands for; never both a level and a budget.
func (p Profile) Main(level genai.ThinkingLevel) *genai.ThinkingConfig {
	if level == "" {
		return nil
	}
	switch p.Kind {
	case Levels, Unknown:
		return &genai.ThinkingConfig{ThinkingLevel: level}
	case Budget:
		b := p.budgetFor(level)
		return &genai.ThinkingConfig{ThinkingBudget: &b}
	}
	return nil
}

// budgetFor maps a level to a 2.5 model's thinkingBudget.
func (p Profile) budgetFor(level genai.ThinkingLevel) int32 {
	switch level {
	case genai.ThinkingLevelMinimal:
		return p.MinBudget
	case genai.ThinkingLevelLow:
		return max(p.MinBudget, 1024)
	case genai.ThinkingLevelMedium:
		return min(8192, p.MaxBudget)
	}
	return p.MaxBudget
}

// Room for thinking an auxiliary request leaves beside its answer, by level: what the level
// may think on a short task, with a margin (python-genai#2062: a tight cap ends MAX_TOKENS with
// little or no text). Output tokens are billed as used, so room costs nothing unspent.
var room = map[genai.ThinkingLevel]int32{
	genai.ThinkingLevelMinimal: 1024,
	genai.ThinkingLevelLow:     2048,
	genai.ThinkingLevelMedium:  8192,
	genai.ThinkingLevelHigh:    16384,
	ThinkingLevelXHigh:         32768,
}

// unknownRoom is the room left when the model's thinking cannot be set (an Unknown model).
const unknownRoom = 8192

// Auxiliary is the configuration of a short auxiliary request (a title, a judgement, a
// summary, a verdict) whose answer needs at most maxOut tokens: thinking at the lowest level
// the model offers (the least budget for a 2.5 model), an output cap of maxOut plus room for
// that thinking, and temperature only for models older than Gemini 3 (which keep their
// default: lower values can make them loop). The caller adds its system instruction.
func (p Profile) Auxiliary(maxOut int32, temperature float32) *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{}
	switch p.Kind {
	case Levels:
		l := p.Lowest()
		cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingLevel: l}
		cfg.MaxOutputTokens = maxOut + room[l]
	case Budget:
		b := p.MinBudget
		cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: &b}
		cfg.MaxOutputTokens = maxOut + b
		cfg.Temperature = genai.Ptr(temperature)
	case NoThinking:
		cfg.MaxOutputTokens = maxOut
		cfg.Temperature = genai.Ptr(temperature)
	default:
		cfg.MaxOutputTokens = maxOut + unknownRoom
	}
	return cfg
}

// WithRoom returns a copy of cfg whose output cap is four times larger (at least 8192 tokens
// more): the retry of an answer that used its whole allowance thinking.
func WithRoom(cfg *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	out := *cfg
	if out.MaxOutputTokens > 0 {
		out.MaxOutputTokens = max(out.MaxOutputTokens*4, out.MaxOutputTokens+8192)
	}
	return &out
}
