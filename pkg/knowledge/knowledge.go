// Package knowledge is what the team learned, as alertchat uses it: the entries a person
// writes (checked, with the indicators found in their text), and the notes an investigation
// starts from (the active entries that match its alert, formatted for the model and for the
// analyst).
//
// Trust: an entry is only ever made by a person's command or yes (knowledge add, history
// resolve --lesson, a confirmed draft). Nothing here writes on the word of the model or of a
// tool; the retrieval and the search read.
//
// Matching: an entry is stored redacted (pkg/store/redacting), so an indicator that redaction
// replaces is stored as its keyed token. An alert's values are read with the indicator parser
// (pkg/ioc) and each is passed through the same keyed redaction: a raw value that redaction
// would replace becomes the entry's token, any other value (a domain, a hash) is compared as it
// is, without case. The keys themselves are store.KnowledgeKeys. With embeddings on (Meaning,
// meaning.go) the entries nearest in meaning to the alert's describing text join those matched
// by key, after them.
package knowledge

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/ioc"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/sentinel"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// MaxGiven is how many entries an investigation is given at most.
const MaxGiven = 8

// maxAlertType bounds an alert type or rule name.
const maxAlertType = 256

// invalid is the kind of every refusal of bad input: the command line maps it to exit 2.
func invalid(msg string, vs ...goerr.Option) error {
	return goerr.Wrap(sentinel.InvalidRequest, msg, vs...)
}

// Draft is an entry as a person gives it, before it is checked and written.
type Draft struct {
	Text       string
	Indicators []string
	AlertTypes []string
	// Expires is --expires: a duration (30d, 2w, 12h), "never", or "" for the default.
	Expires string
	Source  *record.KnowledgeSource
	Author  string
}

// New checks d and makes the entry it describes, created at now: its indicators are the
// values found in its text (the indicator parser, and what the redaction engine eng would
// replace) and those given, each once. Bad input is sentinel.InvalidRequest naming the problem.
func New(d Draft, eng *redact.Redactor, now time.Time) (*record.Knowledge, error) {
	text, err := CheckText(d.Text)
	if err != nil {
		return nil, err
	}
	types, err := CheckAlertTypes(d.AlertTypes)
	if err != nil {
		return nil, err
	}
	exp, err := ParseExpires(d.Expires, now)
	if err != nil {
		return nil, err
	}
	inds, err := Indicators(text, d.Indicators, eng)
	if err != nil {
		return nil, err
	}
	return &record.Knowledge{
		ID: record.KnowledgeID(uuid.NewString()), Text: text, Indicators: inds, AlertTypes: types,
		Source: d.Source, Author: d.Author, CreatedAt: now.UTC().Truncate(time.Microsecond), ExpiresAt: exp,
	}, nil
}

// CheckText trims text and refuses an empty one or one over record.MaxKnowledgeText characters.
func CheckText(text string) (string, error) {
	text = strings.TrimSpace(text)
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return "", invalid("the knowledge text is empty")
	case n > record.MaxKnowledgeText:
		return "", invalid(fmt.Sprintf("the knowledge text is too long: %d characters, at most %d", n, record.MaxKnowledgeText))
	case !utf8.ValidString(text):
		return "", invalid("the knowledge text is not valid UTF-8")
	}
	return text, nil
}

// CheckAlertTypes trims the alert types, drops repeats, and refuses one that cannot be an alert
// type or rule name: empty, over 256 characters, on several lines or holding control
// characters.
func CheckAlertTypes(types []string) ([]string, error) {
	out := []string{}
	for _, t := range types {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			return nil, invalid("an alert type is empty")
		case utf8.RuneCountInString(t) > maxAlertType || !utf8.ValidString(t):
			return nil, invalid(fmt.Sprintf("invalid alert type %q: at most %d characters", cut(t, 40), maxAlertType))
		case strings.ContainsFunc(t, unicode.IsControl):
			return nil, invalid(fmt.Sprintf("invalid alert type %q: one line, no control characters, as its tool names it (e.g. Recon:EC2/PortProbeUnprotectedPort)", cut(t, 40)))
		}
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, t) }) {
			out = append(out, t)
		}
	}
	return out, nil
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return strings.Map(visible, s)
	}
	return strings.Map(visible, string([]rune(s)[:n])) + "…"
}

func visible(r rune) rune {
	if unicode.IsControl(r) {
		return ' '
	}
	return r
}

// maxExpiry bounds --expires: a century is "never" said otherwise.
const maxExpiry = 100 * 366 * 24 * time.Hour

var durationPart = regexp.MustCompile(`^([0-9]+)([a-z]+)`)

// ParseExpires reads --expires at now: "" is the default (record.DefaultKnowledgeTTL), "never"
// is nil, else a positive duration of days, weeks, hours or minutes (90d, 2w, 12h, 1w3d).
func ParseExpires(s string, now time.Time) (*time.Time, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	var d time.Duration
	switch in {
	case "":
		d = record.DefaultKnowledgeTTL
	case "never":
		return nil, nil
	default:
		rest := in
		for rest != "" {
			m := durationPart.FindStringSubmatch(rest)
			if m == nil {
				return nil, invalid(fmt.Sprintf("invalid --expires %q: use a duration such as 90d, 2w or 12h, or never", cut(s, 40)))
			}
			n, err := strconv.ParseInt(m[1], 10, 64)
			unit := map[string]time.Duration{"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
			if err != nil || unit == 0 || time.Duration(n) > maxExpiry/unit || d+time.Duration(n)*unit > maxExpiry {
				return nil, invalid(fmt.Sprintf("invalid --expires %q: use a duration such as 90d, 2w or 12h, or never", cut(s, 40)))
			}
			d += time.Duration(n) * unit
			rest = rest[len(m[0]):]
		}
		if d <= 0 {
			return nil, invalid(fmt.Sprintf("invalid --expires %q: it must be positive", cut(s, 40)))
		}
	}
	t := now.UTC().Add(d).Truncate(time.Microsecond)
	return &t, nil
}

// Indicators are the indicator values of an entry: those the parser finds in text, those the
// redaction engine would replace in it (as their tokens: the raw value is not kept), and the
// given ones, each once. A given value that is no indicator of any kind is refused.
func Indicators(text string, given []string, eng *redact.Redactor) ([]string, error) {
	out := []string{}
	// Each value once as it will be stored: a raw value and the token it is redacted to are one.
	seen := map[string]bool{}
	add := func(v string) {
		if k := keyOf(eng, v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	for _, v := range given {
		v = strings.TrimSpace(v)
		if v == "" || utf8.RuneCountInString(v) > 512 || strings.ContainsFunc(v, unicode.IsSpace) {
			return nil, invalid(fmt.Sprintf("invalid --indicator %q: one value, such as an IP address, a domain, a hash or an account ID", cut(v, 40)))
		}
		add(v)
	}
	for _, ind := range ioc.Find(text, "") {
		add(ind.Value)
	}
	for _, tok := range tokens(eng, text) {
		add(tok)
	}
	return out, nil
}

var tokenPattern = regexp.MustCompile(`\[REDACTED_[A-Z0-9_]+_[a-z0-9]+\]`)

// tokens are the keyed tokens eng writes for the values of s it replaces.
func tokens(eng *redact.Redactor, s string) []string {
	if !eng.Enabled() || !eng.Tokens() {
		return nil
	}
	red, _ := eng.String(s)
	var out []string
	for _, m := range tokenPattern.FindAllString(red, -1) {
		if redact.IsToken(m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// keyOf is the key of one raw indicator value: its token when eng replaces it, else the value.
func keyOf(eng *redact.Redactor, v string) string {
	if eng.Enabled() {
		if red, _ := eng.String(v); red != v {
			if toks := tokenPattern.FindAllString(red, -1); len(toks) == 1 {
				return store.IndicatorKey(toks[0])
			}
		}
	}
	return store.IndicatorKey(v)
}

// AlertKeys are the keys an alert's notes are found by: each of its indicator values (as the
// entries store them) and its alert type.
func AlertKeys(a *record.Alert, eng *redact.Redactor) []string {
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if t := alert.Type(a.Data); t != "" {
		add(store.AlertTypeKey(t))
	}
	for _, ind := range ioc.FromAlert(a.Data) {
		if ind.Type == ioc.URL {
			continue // its host is an indicator of its own; a whole URL rarely repeats
		}
		add(keyOf(eng, ind.Value))
	}
	return out
}

// QueryKeys are the keys of a search: its words, its indicator values (a raw value that
// redaction replaces as its token) and the tokens typed as they are.
func QueryKeys(query string, eng *redact.Redactor) []string {
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, ind := range ioc.Find(query, "") {
		add(keyOf(eng, ind.Value))
	}
	for _, tok := range tokens(eng, query) {
		add(store.IndicatorKey(tok))
		add(store.WordKey(strings.ToLower(strings.Trim(tok, "[]"))))
	}
	for _, tok := range tokenPattern.FindAllString(query, -1) {
		add(store.IndicatorKey(tok))
	}
	for _, t := range index.Terms(query) {
		add(store.WordKey(t))
	}
	return out
}

// Matcher finds entries by their keys (store.KnowledgeBase).
type Matcher interface {
	MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error)
}

// candidates is how many matching entries are read to rank limit of them: the store returns
// those sharing the most first, and some may have expired.
func candidates(limit int) int { return max(50, 5*limit) }

// Retriever finds the notes of an alert at the start of an investigation.
type Retriever struct {
	Store Matcher
	// Engine is the workspace's keyed redaction (fetched on first need).
	Engine func() *redact.Redactor
	Now    func() time.Time
	// Meaning, when set (embeddings on), adds the entries nearest in meaning (meaning.go).
	Meaning *Meaning
}

// ForAlert returns the active entries that match a, at most MaxGiven, best first: an entry
// sharing more of the alert's indicators first, then one of the alert's type, newer before
// older; then, with Meaning, those nearest in meaning to the alert's text, nearest first. The
// alert's text is embedded while the store is asked for the matches; a failure to find notes
// by meaning costs those notes only (Meaning.Warn is told).
func (r *Retriever) ForAlert(ctx context.Context, a *record.Alert) ([]*record.Knowledge, error) {
	eng := r.engine()
	keys := AlertKeys(a, eng)
	if r.Meaning == nil {
		return r.rank(ctx, keys, MaxGiven)
	}
	vec := r.Meaning.embed(ctx, AlertMeaningText(a, eng))
	found, err := r.rank(ctx, keys, MaxGiven)
	if err != nil {
		vec.stop()
		return nil, err
	}
	if len(found) >= MaxGiven {
		vec.stop()
		return found, nil
	}
	near := r.Meaning.nearest(ctx, vec, MaxGiven, r.now)
	for _, h := range near {
		if len(found) == MaxGiven {
			break
		}
		if !slices.ContainsFunc(found, func(e *record.Knowledge) bool { return e.ID == h.Entry.ID }) {
			found = append(found, h.Entry)
		}
	}
	return found, nil
}

// Search returns the active entries matching query, best first, at most limit. With Meaning,
// the entries near the query in meaning count too: an entry's score is its share of the best
// match by words and indicators plus its similarity, so an entry found both ways ranks first.
func (r *Retriever) Search(ctx context.Context, query string, limit int) ([]*record.Knowledge, error) {
	keys := QueryKeys(query, r.engine())
	if r.Meaning == nil || strings.TrimSpace(query) == "" {
		if len(keys) == 0 {
			return nil, nil
		}
		return r.rank(ctx, keys, limit)
	}
	red := query
	if eng := r.engine(); eng.Enabled() {
		red, _ = eng.String(query)
	}
	vec := r.Meaning.embed(ctx, red)
	var scored []scoredEntry
	if len(keys) > 0 {
		var err error
		if scored, err = r.score(ctx, keys, limit); err != nil {
			vec.stop()
			return nil, err
		}
	}
	return mergeByMeaning(scored, r.Meaning.nearest(ctx, vec, limit, r.now), limit), nil
}

func (r *Retriever) engine() *redact.Redactor {
	if r.Engine == nil {
		return nil
	}
	return r.Engine()
}

func (r *Retriever) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// rank reads the entries holding any of keys and keeps the active ones, best first: the more
// keys an entry holds the better (a shared indicator counts most, then the alert type, then a
// word), then the newer.
func (r *Retriever) rank(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	out, err := r.score(ctx, keys, limit)
	if err != nil {
		return nil, err
	}
	es := make([]*record.Knowledge, len(out))
	for i, s := range out {
		es[i] = s.e
	}
	return es, nil
}

// scoredEntry is an entry and the weight of the keys it shares with what is looked up.
type scoredEntry struct {
	e     *record.Knowledge
	score int
}

// score is rank with each entry's score.
func (r *Retriever) score(ctx context.Context, keys []string, limit int) ([]scoredEntry, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	found, err := r.Store.MatchKnowledge(ctx, keys, candidates(limit))
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	now := r.now()
	var out []scoredEntry
	for _, e := range found {
		if !e.Active(now) {
			continue
		}
		score := 0
		for _, k := range store.KnowledgeKeys(e) {
			if want[k] {
				score += store.KeyWeight(k)
			}
		}
		out = append(out, scoredEntry{e, score})
	}
	slices.SortStableFunc(out, func(x, y scoredEntry) int {
		if x.score != y.score {
			return y.score - x.score
		}
		return newerFirst(x.e, y.e)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// newerFirst orders entries newer first, then by ID.
func newerFirst(x, y *record.Knowledge) int {
	if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(string(x.ID), string(y.ID))
}
