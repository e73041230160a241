package store

import (
	"context"
	"strings"

	"github.com/alertchat/alertchat/pkg/record"
)

// Search is part of Store (Searcher, VectorSearcher, Indexer, AlertSearcher): the stores keep what a
// search needs beside the metadata (see pkg/search for how results are merged and ranked), so
// no search reads transcripts.

// SearchQuery asks a backend for the histories of its workspace that match.
type SearchQuery struct {
	// Phrases are the query's words, each inner list a phrase (pkg/search/text.Phrases);
	// a history matching any of them is a candidate, ranked by how well it matches.
	Phrases [][]string
	// Terms are single normalised terms matched as they are (redaction tokens, compounds).
	Terms []string
	// AlertID, when set, keeps only histories of that alert.
	AlertID record.AlertID
	// Limit caps the hits (<= 0: DefaultLimit; at most MaxLimit).
	Limit int
}

// SearchHit is one matching history.
type SearchHit struct {
	History *record.History // metadata only
	// Score is the backend's relevance, higher is better; comparable only within one answer.
	Score float64
	// Snippet is a short excerpt around the match; the match is between SnippetOpen and
	// SnippetClose.
	Snippet string
	// Features are terms that describe the history (for diversifying results when no vector
	// is known).
	Features []string
	// Vector is the history's embedding when the backend has one.
	Vector []float32
}

// Markers around a match in SearchHit.Snippet: control characters that redacted text never
// holds, replaced by the command line with its highlighting.
const (
	SnippetOpen  = "\x02"
	SnippetClose = "\x03"
)

var snippetMarkers = strings.NewReplacer(SnippetOpen, "", SnippetClose, "")

// PlainSnippet is a snippet without its match markers, for a reader that highlights nothing
// (a tool result the model reads and the transcript keeps).
func PlainSnippet(s string) string { return snippetMarkers.Replace(s) }

// Searcher searches the histories' words in the backend's index.
type Searcher interface {
	// SearchText returns the histories matching q's words and terms, best first.
	SearchText(ctx context.Context, q SearchQuery) ([]SearchHit, error)
}

// VectorSearcher keeps and searches embeddings of histories.
type VectorSearcher interface {
	// SearchVector returns the histories whose embedding is nearest to v, nearest first,
	// Score being the cosine similarity.
	SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) ([]SearchHit, error)
	// PutEmbedding adds the embedding of a history's contents from index from (the count
	// it was computed from) to its stored vector; a history whose stored vector already
	// covers a different count is left alone (another writer got there first) and applied is
	// false.
	PutEmbedding(ctx context.Context, id record.HistoryID, from, to int, v []float32) (applied bool, err error)
	// EmbeddedCount is how many leading contents of a history the stored vector covers.
	EmbeddedCount(ctx context.Context, id record.HistoryID) (int, error)
}

// Indexer checks and rebuilds the search index (history reindex, history fsck).
type Indexer interface {
	// Unindexed lists histories of the workspace missing from the index, at most limit,
	// in ID order after the ID after (empty: from the start).
	Unindexed(ctx context.Context, after record.HistoryID, limit int) ([]record.HistoryID, error)
	// Reindex indexes one history from its stored transcript.
	Reindex(ctx context.Context, id record.HistoryID) error
}

// AlertSearchQuery asks a backend for the alerts of its workspace that match.
type AlertSearchQuery struct {
	// Text is the query as typed: words of the alerts' fields and raw indicators (an IP, a
	// domain, a hash, an ARN), split into terms by pkg/store/index.
	Text string
	// Limit caps the hits (<= 0: DefaultLimit; at most MaxLimit).
	Limit int
	// Severity and Source, when set, keep only the alerts that have that severity or source.
	Severity, Source string
}

// AlertHit is one matching alert.
type AlertHit struct {
	Alert *record.Alert // Data is nil
	// Score is the backend's relevance, higher is better, in [0, 1].
	Score float64
	// Snippet is a short excerpt of the alert around the match, the match between
	// SnippetOpen and SnippetClose.
	Snippet string
}

// AlertSearcher searches the backend's index of its alerts, written with the alert: a search
// never scans the alerts.
type AlertSearcher interface {
	SearchAlerts(ctx context.Context, q AlertSearchQuery) ([]AlertHit, error)
}
