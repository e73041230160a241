package record

import (
	"strings"
	"time"
)

// KnowledgeID identifies a team knowledge entry; a random UUID. People and the model name an
// entry by its short form, K-<first 8 characters> (Knowledge.Ref).
type KnowledgeID string

// Knowledge is one entry of what the team learned ("198.51.100.23 is our external scanner"):
// written only by a person (knowledge add, history resolve --lesson, a confirmed draft), given
// to the model at the start of an investigation while it is active.
type Knowledge struct {
	ID        KnowledgeID `json:"id"`
	Workspace string      `json:"-"`
	// Text is what the team knows, at most MaxKnowledgeText characters, redacted like every
	// write.
	Text string `json:"text"`
	// Indicators are the values the entry is about (IPs, domains, e-mail addresses, hashes,
	// cloud IDs), found in its text or given; a value that redaction replaces is stored as its
	// keyed token, so a raw value in an alert still matches it.
	Indicators []string `json:"indicators"`
	// AlertTypes are alert type or rule names (record.Alert's alert.Type) the entry is about.
	AlertTypes []string `json:"alert_types"`
	// Source is the investigation a lesson was learned from; nil for an entry added by hand.
	Source    *KnowledgeSource `json:"source"`
	Author    string           `json:"author"`
	CreatedAt time.Time        `json:"created_at"`
	// ExpiresAt is when the entry stops being given (nil: never); RetiredAt when a person
	// retired it (knowledge rm). Both keep the entry for audit.
	ExpiresAt *time.Time `json:"expires_at"`
	RetiredAt *time.Time `json:"retired_at"`
	// Vector is the embedding of the stored (redacted) text, set by the embedding layer with
	// --embeddings and written beside the entry, so that it is found by meaning. The stores
	// never read it back into an entry: a write without it (embeddings off) leaves none, never
	// a vector of text the entry no longer holds.
	Vector []float32 `json:"-"`
}

// KnowledgeSource is the investigation a lesson comes from and how it ended.
type KnowledgeSource struct {
	HistoryID HistoryID `json:"history_id"`
	Verdict   Verdict   `json:"verdict"`
}

// MaxKnowledgeText bounds an entry's text, in characters.
const MaxKnowledgeText = 2000

// DefaultKnowledgeTTL is how long an entry is given when no expiry is said.
const DefaultKnowledgeTTL = 180 * 24 * time.Hour

// Active reports whether the entry is given to the model at now: neither retired nor expired.
func (k *Knowledge) Active(now time.Time) bool {
	return k.RetiredAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Ref is the entry's short name, as the model cites it and people type it: K-1a2b3c4d.
func (k *Knowledge) Ref() string { return KnowledgeRef(k.ID) }

// KnowledgeRef is the short name of the entry id.
func KnowledgeRef(id KnowledgeID) string {
	s := string(id)
	if len(s) > 8 {
		s = s[:8]
	}
	return "K-" + s
}

// TrimKnowledgeRef turns what a person or the model typed (K-1a2b3c4d, [K-1a2b3c4d], or the
// ID itself) into an ID or ID prefix.
func TrimKnowledgeRef(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if len(s) > 2 && (s[0] == 'K' || s[0] == 'k') && s[1] == '-' {
		s = s[2:]
	}
	return strings.ToLower(s)
}
