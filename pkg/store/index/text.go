// Package index holds what both stores index with and pkg/search builds on, so imports point one
// way (stores -> index <- search). It turns what a store keeps (titles, summaries, redacted
// transcripts) and what an analyst types (search queries) into the same normalised terms, so that
// both stores index and look up words and redaction tokens alike, and it holds the vector
// arithmetic (Cosine). It is a leaf.
//
// A term is a run of letters, digits and '_', lower-cased. The underscore keeps a redaction
// token whole: "[REDACTED_IP_k3j2h1]" is the one term "redacted_ip_k3j2h1", so a token matches
// only itself. This is also how the local store's full-text index splits text (SQLite FTS5's
// unicode61 tokenizer with tokenchars '_').
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

// Words returns the terms of s in order, duplicates kept.
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
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// Phrases splits a query into its whitespace-separated fields, each as the list of its terms:
// "203.0.113.7 lateral" is [[203 0 113 7] [lateral]]. A field of several terms is searched
// as a phrase (its terms adjacent and in order), so a dotted address or an e-mail written as
// the alert holds it matches itself, not every text with a "7" in it.
func Phrases(query string) [][]string {
	var out [][]string
	for _, f := range strings.Fields(query) {
		if w := Words(f); len(w) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// Compounds returns the whitespace-separated fields of s that hold inner punctuation
// (addresses, e-mails, host names, paths), trimmed of surrounding punctuation and lower-cased:
// "see 203.0.113.7," gives [203.0.113.7]. The cloud store indexes them beside Words, since it
// has no phrase queries.
func Compounds(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
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

// IsStop reports whether term is too common to index or rank.
func IsStop(term string) bool { return stop[term] }

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
// matching words between open and closing; "" when no word matches.
func Snippet(s string, match func(term string) bool, n int, open, closing string) string {
	fields := strings.Fields(s)
	first := -1
	for i, f := range fields {
		for _, w := range Words(f) {
			if match(w) {
				first = i
				break
			}
		}
		if first >= 0 {
			break
		}
	}
	if first < 0 {
		return ""
	}
	start := max(0, first-n/3)
	end := min(len(fields), start+n)
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		hit := false
		for _, w := range Words(fields[i]) {
			hit = hit || match(w)
		}
		if hit {
			b.WriteString(open + fields[i] + closing)
		} else {
			b.WriteString(fields[i])
		}
	}
	if end < len(fields) {
		b.WriteString("…")
	}
	return b.String()
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
