package store

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// KnowledgeBase keeps the team knowledge entries of a workspace (Firestore collection
// knowledge; the local table knowledge). Entries of another workspace are never seen.
// Entries are never deleted: a retired one is kept for audit.
type KnowledgeBase interface {
	// PutKnowledge writes e whole, keyed by e.ID within the store's workspace: a new entry, or
	// a new state of a stored one (edit, retire). Writing the same entry again leaves one
	// entry, so a retried write is the same write. It sets e.Workspace.
	PutKnowledge(ctx context.Context, e *record.Knowledge) error
	// GetKnowledge returns the entry with that ID, or the only one whose ID starts with id
	// when id has MinKnowledgePrefix or more characters; two matches are ErrInvalid naming
	// them, none ErrNotFound.
	GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error)
	// ListKnowledge returns entries newest first, at most q.Limit (ClampLimit): the entries
	// not retired, or with q.All every one. Expiry is the caller's to judge (record.Knowledge.Active).
	ListKnowledge(ctx context.Context, q KnowledgeQuery) ([]*record.Knowledge, error)
	// MatchKnowledge returns the entries not retired that hold any of keys (KnowledgeKeys),
	// at most limit (ClampLimit). A backend that reads more matching entries than limit
	// keeps those holding the most (KeyWeight), or at least reads the indicator and alert type
	// keys apart from the words; the caller ranks what it returns.
	MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error)
	// NearestKnowledge returns the entries not retired whose vector (record.Knowledge.Vector,
	// written by PutKnowledge) is nearest to v by cosine, nearest first, at most limit
	// (ClampLimit). An entry written without a vector is never among them. Expiry is the
	// caller's to judge.
	NearestKnowledge(ctx context.Context, v []float32, limit int) ([]KnowledgeHit, error)
}

// KnowledgeHit is an entry found by meaning and its cosine similarity to the vector asked for.
type KnowledgeHit struct {
	Entry *record.Knowledge
	Score float64
}

// KnowledgeQuery selects entries to list.
type KnowledgeQuery struct {
	All   bool
	Limit int
}

// MinKnowledgePrefix is the shortest ID prefix GetKnowledge resolves.
const MinKnowledgePrefix = 8

// KnowledgeCandidates is how many entries a backend reads for a prefix: enough to name the
// candidates of an ambiguous one.
const KnowledgeCandidates = 6

// MaxKnowledgeKeys bounds the keys of one entry a backend indexes.
const MaxKnowledgeKeys = 400

// The key kinds: an indicator, an alert type, a word of the text.
const (
	KeyIndicator = "i:"
	KeyAlertType = "t:"
	KeyWord      = "w:"
)

// KeyWeight is how much a shared key of kind (a key, or its KeyIndicator, KeyAlertType or
// KeyWord prefix) counts when entries are ranked: a shared indicator most, then the alert
// type, then a word.
func KeyWeight(key string) int {
	switch {
	case strings.HasPrefix(key, KeyIndicator):
		return 10
	case strings.HasPrefix(key, KeyAlertType):
		return 5
	}
	return 1
}

// IndicatorKey is the key of an indicator value: lower-cased, and a keyed token
// ([REDACTED_IP_k3v9q2]) without its brackets, as index terms write it.
func IndicatorKey(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if strings.HasPrefix(v, "[redacted_") && strings.HasSuffix(v, "]") {
		v = v[1 : len(v)-1]
	}
	return KeyIndicator + v
}

// AlertTypeKey is the key of an alert type or rule name: compared without case.
func AlertTypeKey(t string) string { return KeyAlertType + strings.ToLower(strings.TrimSpace(t)) }

// WordKey is the key of a term of text (index.Terms).
func WordKey(term string) string { return KeyWord + term }

// KnowledgeKeys are what an entry is found by: its indicators, its alert types and the terms of
// its text (tokens included), each once. Both backends index these, as stored (redacted).
func KnowledgeKeys(e *record.Knowledge) []string {
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if len(out) < MaxKnowledgeKeys && !seen[k] && utf8.RuneCountInString(k) <= 200 {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, v := range e.Indicators {
		add(IndicatorKey(v))
	}
	for _, t := range e.AlertTypes {
		add(AlertTypeKey(t))
	}
	for _, t := range index.Terms(e.Text) {
		add(WordKey(t))
	}
	return out
}

// CheckKnowledge refuses an entry that cannot be stored.
func CheckKnowledge(e *record.Knowledge) error {
	switch {
	case e == nil || e.ID == "" || len(e.ID) > 64 || strings.ContainsAny(string(e.ID), "/%"):
		return goerr.Wrap(ErrInvalid, "invalid knowledge entry ID")
	case strings.TrimSpace(e.Text) == "":
		return goerr.Wrap(ErrInvalid, "knowledge entry without text", goerr.V("id", e.ID))
	}
	return nil
}

// PickKnowledge resolves GetKnowledge(id) among the entries a backend found whose ID starts with
// id (at most KnowledgeCandidates, in ID order).
func PickKnowledge(id string, found []*record.Knowledge) (*record.Knowledge, error) {
	for _, e := range found {
		if string(e.ID) == id {
			return e, nil
		}
	}
	nf := goerr.Wrap(ErrNotFound, "knowledge entry "+id+" not found", goerr.V("knowledge_id", id))
	if len(id) < MinKnowledgePrefix {
		return nil, nf
	}
	switch len(found) {
	case 0:
		return nil, nf
	case 1:
		return found[0], nil
	}
	var names []string
	for _, e := range found {
		names = append(names, string(e.ID))
	}
	slices.Sort(names)
	more := ""
	if len(names) > KnowledgeCandidates-1 {
		names, more = names[:KnowledgeCandidates-1], ", ..."
	}
	return nil, goerr.Wrap(ErrInvalid, "knowledge ID "+id+" is ambiguous: it matches "+strings.Join(names, ", ")+more,
		goerr.V("knowledge_id", id), goerr.V("candidates", names))
}
