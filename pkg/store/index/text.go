// Package index holds what both stores index with and pkg/search builds on, so imports point one
// way (stores -> index <- search). It turns what a store keeps (titles, summaries, redacted
// transcripts) and what an analyst types (search queries) into the same normalised terms, so that
// both stores index and look up words and redaction tokens alike, and it holds the vector
// arithmetic (Cosine). It is a leaf.
//
// A term is a run of letters, digits and '_', lower-cased, or in Japanese, Chinese and Korean
// text a character bigram (cjk.go). The underscore keeps a redaction
// token whole: "[REDACTED_IP_k3j2h1]" is the one term "redacted_ip_k3j2h1", so a token matches
// only itself. This is also how the local store's full-text index splits text (SQLite FTS5's
// unicode61 tokenizer with tokenchars '_', on text passed through Segmented).
package index

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"google.golang.org/genai"
)

// Words returns the terms of s in order, duplicates kept. A run of CJK characters gives its
// bigrams (see cjk.go), so "不審なログイン" is [不審 審な なロ ログ グイ イン], and a CJK run next to
// other letters is a word of its own ("Windowsログオン" is [windows ログ グオ オン]).
func Words(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = appendWord(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = appendWord(out, s[start:])
	}
	return out
}

// appendWord appends the terms of one run of word runes.
func appendWord(out []string, w string) []string {
	if !HasCJK(w) {
		return append(out, strings.ToLower(w))
	}
	for w != "" {
		cjk := IsCJK(firstRune(w))
		j := strings.IndexFunc(w, func(r rune) bool { return IsCJK(r) != cjk })
		if j < 0 {
			j = len(w)
		}
		if cjk {
			out = cjkWords(out, w[:j])
		} else {
			out = append(out, strings.ToLower(w[:j]))
		}
		w = w[j:]
	}
	return out
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// Phrases splits a query into its whitespace-separated fields, each as the list of its terms:
// "203.0.113.7 lateral" is [[203 0 113 7] [lateral]]. A field of several terms is searched
// as a phrase (its terms adjacent and in order), so a dotted address or an e-mail written as
// the alert holds it matches itself, not every text with a "7" in it. A run of CJK text is a
// phrase of its own (its bigrams), apart from the rest of its field: "203.0.113.7からの通信"
// is [[203 0 113 7] [から らの の通 通信]].
func Phrases(query string) [][]string {
	var out [][]string
	for _, f := range strings.Fields(query) {
		for _, piece := range splitCJK(f) {
			if w := Words(piece); len(w) > 0 {
				out = append(out, w)
			}
		}
	}
	return out
}

// splitCJK splits s into its CJK runs and the text between them; s without CJK is [s].
func splitCJK(s string) []string {
	if !HasCJK(s) {
		return []string{s}
	}
	var out []string
	for s != "" {
		cjk := IsCJK(firstRune(s))
		j := strings.IndexFunc(s, func(r rune) bool { return IsCJK(r) != cjk })
		if j < 0 {
			j = len(s)
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}

// compoundSep separates the fields Compounds looks at: whitespace, and in CJK text (which
// puts no spaces around an address) CJK characters and CJK punctuation.
func compoundSep(r rune) bool {
	return unicode.IsSpace(r) || IsCJK(r) || (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFF65 && !isWordRune(r))
}

// Compounds returns the whitespace-separated fields of s that hold inner punctuation
// (addresses, e-mails, host names, paths), trimmed of surrounding punctuation and lower-cased:
// "see 203.0.113.7," gives [203.0.113.7]. The cloud store indexes them beside Words, since it
// has no phrase queries.
func Compounds(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, compoundSep) {
		f = strings.TrimFunc(f, func(r rune) bool { return !isWordRune(r) })
		if f == "" || !strings.ContainsFunc(f, func(r rune) bool { return !isWordRune(r) }) {
			continue
		}
		if utf8.RuneCountInString(f) > maxTermRunes {
			continue
		}
		out = append(out, strings.ToLower(f))
	}
	return out
}

// maxTermRunes bounds an indexed term: longer runs (base64 blobs, hashes of hashes) are not
// what analysts type.
const maxTermRunes = 64

// IsToken reports whether a term is a redaction placeholder or keyed token
// ("redacted_ip", "redacted_ip_k3j2h1").
func IsToken(term string) bool { return strings.HasPrefix(term, "redacted_") }

// stop is a small list of English words too common to rank or index.
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can do does did for from had has have he her his how i if in
		into is it its me my no not of on or our she so than that the their them then there these they this to was we were what
		when where which who why will with you your`) {
		stop[w] = true
	}
}

// IsStop reports whether term is too common to index or rank: an English stop word, or a CJK
// term of hiragana only.
func IsStop(term string) bool { return stop[term] || isKanaStop(term) }

// Terms returns the distinct terms of s worth indexing, in first-seen order: Words without
// stop words and over-long runs, then Compounds.
func Terms(s string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if !seen[t] && !IsStop(t) && utf8.RuneCountInString(t) <= maxTermRunes {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, w := range Words(s) {
		add(w)
	}
	for _, c := range Compounds(s) {
		add(c)
	}
	return out
}

// Contents is the searchable text of transcript contents: their text parts, one per line.
// Function calls and responses are left out (their arguments are tool plumbing, and their
// results repeat what the model then says); thoughts are left out.
func Contents(cs []*genai.Content) string {
	var b strings.Builder
	for _, c := range cs {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			if p == nil || p.Thought || p.Text == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Snippet returns about n words of s around the first word for which match is true, the
// matching words between open and closing; "" when no word matches. In CJK text a character
// counts as half a word, and the characters of a matching bigram are marked as one span. It
// reads s only as far as the snippet needs.
func Snippet(s string, match func(term string) bool, n int, open, closing string) string {
	budget := float64(n)
	keepBefore := 2*n/3 + 1 // units that can stand before the first match (half a word each at least)
	var units []snippetUnit
	dropped, more := false, false
	first := -1
	snippetUnits(s, match, func(u snippetUnit) bool {
		if first >= 0 && len(units)-first >= 2*n {
			more = true
			return false
		}
		if first < 0 && u.hit {
			first = len(units)
		}
		if first < 0 && len(units) == 2*keepBefore {
			// Only the last keepBefore units before a match can be shown.
			units = append(units[:0], units[keepBefore:]...)
			dropped = true
		}
		units = append(units, u)
		return true
	})
	if first < 0 {
		return ""
	}
	// Walk back a third of the budget, then forward the rest of it.
	start := first
	for back := budget / 3; start > 0 && back >= units[start-1].weight; start-- {
		back -= units[start-1].weight
	}
	end := start
	for used := 0.0; end < len(units) && used+units[end].weight <= budget; end++ {
		used += units[end].weight
	}
	end = max(end, first+1)
	var b strings.Builder
	if start > 0 || dropped {
		b.WriteString("…")
	}
	for i := start; i < end; i++ {
		u := units[i]
		if i > start && u.spaced {
			b.WriteByte(' ')
		}
		joined := i > start && !u.spaced && units[i-1].hit
		if u.hit && !joined {
			b.WriteString(open)
		}
		b.WriteString(u.text)
		if u.hit && (i+1 == end || units[i+1].spaced || !units[i+1].hit) {
			b.WriteString(closing)
		}
	}
	if end < len(units) || more {
		b.WriteString("…")
	}
	return b.String()
}

// snippetUnit is a whitespace-separated field of s, or one CJK character (or run of other
// characters) of a field holding CJK text.
type snippetUnit struct {
	text   string
	spaced bool // preceded by whitespace
	hit    bool
	weight float64
}

// snippetUnits gives the units of s to yield, in order, until yield returns false.
func snippetUnits(s string, match func(string) bool, yield func(snippetUnit) bool) {
	hitAny := func(ws []string) bool {
		for _, w := range ws {
			if match(w) {
				return true
			}
		}
		return false
	}
	var units []snippetUnit
	var cjk []bool
	for f := range strings.FieldsSeq(s) {
		if !HasCJK(f) {
			if !yield(snippetUnit{text: f, spaced: true, hit: hitAny(Words(f)), weight: 1}) {
				return
			}
			continue
		}
		units, cjk = units[:0], cjk[:0]
		for rest := f; rest != ""; {
			r, size := utf8.DecodeRuneInString(rest)
			if IsCJK(r) {
				units = append(units, snippetUnit{text: rest[:size], weight: 0.5})
				cjk = append(cjk, true)
				rest = rest[size:]
				continue
			}
			j := strings.IndexFunc(rest, IsCJK)
			if j < 0 {
				j = len(rest)
			}
			units = append(units, snippetUnit{text: rest[:j], hit: hitAny(Words(rest[:j])), weight: 1})
			cjk = append(cjk, false)
			rest = rest[j:]
		}
		units[0].spaced = true
		// A CJK character is a hit when a bigram it belongs to matches, or, alone in its run,
		// when it matches itself.
		for i := range units {
			if !cjk[i] {
				continue
			}
			prev := i > 0 && cjk[i-1]
			next := i+1 < len(units) && cjk[i+1]
			u := &units[i]
			switch {
			case !prev && !next:
				u.hit = match(u.text)
			default:
				u.hit = prev && match(units[i-1].text+u.text) || next && match(u.text+units[i+1].text)
			}
		}
		for _, u := range units {
			if !yield(u) {
				return
			}
		}
	}
}

// AlertText is the searchable text of an alert: its title, then every string and number of
// its JSON (field values: names, addresses, hashes, ARNs, descriptions), one per line. Field
// names are left out: they are the same in every alert of a kind.
func AlertText(title string, data []byte) string {
	var b strings.Builder
	b.WriteString(title)
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // account IDs and the like stay exact
	if err := dec.Decode(&v); err != nil {
		b.WriteString("\n")
		b.Write(data)
		return b.String()
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			if x != "" {
				b.WriteString("\n")
				b.WriteString(x)
			}
		case json.Number:
			b.WriteString("\n")
			b.WriteString(x.String())
		}
	}
	walk(v)
	return b.String()
}
