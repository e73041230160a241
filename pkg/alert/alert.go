// Package alert turns what the security tools print into stored alerts: one alert per finding
// (of a single object, an envelope of several, or a stream of them), each with an ID derived
// from the finding's canonical JSON, and the title, severity, source and time its schema
// gives.
package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/sentinel"
)

// MaxSize is the largest alert accepted. An alert is placed in every request's system
// instruction, so a bigger one would exhaust the model's context anyway.
const MaxSize = 8 << 20

// ErrInvalid is returned for input that is not a usable alert.
var ErrInvalid = sentinel.InvalidAlert

// namespace makes alert IDs UUIDv5 values derived from the canonical JSON of the finding (for
// a single object, the whole object: the IDs of alerts added before envelopes were recognised
// stay the same).
var namespace = uuid.MustParse("8f1f4cb4-6a3e-4d0c-9a55-3c3b7b0c7a11")

// canonicalJSON re-encodes v with sorted keys, no insignificant space and numbers as written,
// so formatting and key order do not change an alert's ID.
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// titleKeys are tried in order at each level, covering GuardDuty, Security Command Center and
// common generic shapes: a log line or a SIEM's export describes itself in its summary or
// message, and an EventBridge event without a detail object by its detail type.
var titleKeys = []string{"Title", "title", "category", "Category", "Name", "name", "Type", "type", "Description", "description",
	"Summary", "summary", "Message", "message", "msg", "detail-type"}

// containerKeys hold the finding itself in common alert envelopes.
var containerKeys = []string{"Findings", "findings", "finding", "Finding", "alert", "Alert", "detail", "data"}

// Title finds a human-readable title in a decoded alert, or "".
func Title(v any) string {
	return findTitle(v, 0)
}

func findTitle(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch x := v.(type) {
	case []any:
		if len(x) > 0 {
			return findTitle(x[0], depth+1)
		}
	case map[string]any:
		for _, k := range containerKeys {
			if inner, ok := x[k]; ok {
				if t := findTitle(inner, depth+1); t != "" {
					return t
				}
			}
		}
		for _, k := range titleKeys {
			if s, ok := x[k].(string); ok && strings.TrimSpace(s) != "" {
				return oneLine(s)
			}
		}
	}
	return ""
}

// MaxTitleWidth bounds an alert's title, in display columns (an East Asian wide character
// takes two): the design's title limit ("Text in every script").
const MaxTitleWidth = 60

// oneLine makes s a title: one line, at most MaxTitleWidth columns, cut with "…" at a word
// boundary in spaced scripts (never inside a word, unless one word fills the width) and between
// characters in CJK text.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if format.Width(s) <= MaxTitleWidth {
		return s
	}
	body := strings.TrimSuffix(format.TruncateWords(s, MaxTitleWidth, format.Ellipsis), format.Ellipsis)
	// TruncateWords cuts inside a word when its last space keeps less than half the width.
	if rest := s[len(body):]; rest != "" && wordRune(lastRune(body)) && wordRune(firstRune(rest)) {
		if i := strings.LastIndexByte(body, ' '); i > 0 {
			body = body[:i]
		}
	}
	return strings.TrimRight(body, " ") + format.Ellipsis
}

// wordRune reports whether r is part of a word of a script that separates words with spaces.
func wordRune(r rune) bool {
	cjk := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー' || r == '々'
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || strings.ContainsRune("_-'./:@", r)) && !cjk
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// recordTitle says what a record with no descriptive field is: its scalar members, by name
// ("host=web-1 user=alice"), else the names of its members.
func recordTitle(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		var parts []string
		for _, k := range keys {
			switch val := x[k].(type) {
			case string, json.Number, bool, float64:
				parts = append(parts, fmt.Sprintf("%s=%v", k, val))
			}
		}
		if len(parts) > 0 {
			return oneLine(strings.Join(parts, " "))
		}
		if len(keys) > 0 {
			return oneLine("JSON object of " + strings.Join(keys, ", "))
		}
		return "empty JSON object"
	case []any:
		return listTitle(x)
	}
	return ""
}

// listTitle is the title of a list that is not a list of findings.
func listTitle(x []any) string {
	if t := Title(x); t != "" {
		return t
	}
	return fmt.Sprintf("JSON list of %d values", len(x))
}

// Putter is what storing an alert needs.
type Putter interface {
	PutAlert(ctx context.Context, a *record.Alert) (bool, error)
}

// Put stores a parsed alert (a no-op when it is there already), stamped now.
func Put(ctx context.Context, s Putter, a *record.Alert, now time.Time) error {
	a.CreatedAt = now
	if _, err := s.PutAlert(ctx, a); err != nil {
		return goerr.Wrap(err, "failed to store alert", goerr.V("alert_id", a.ID))
	}
	return nil
}
