package store

import (
	"context"
)

// The layers of the command line's store, from the command down (assembled by pkg/workspace's
// Stack). What each method of Store is (read, write, once, local; whether it writes
// conversation text) is one row of the contract table (contract.go). The retries implement the
// whole Store, method by method, over those rows: no method can pass them unseen, and a method
// added to Store does not compile until it says what it does. The other layers embed the store
// below and declare only the methods they change (internal/storetest.Overrides tells which);
// the redacting layer's test fails for a method whose row says it writes conversation text that
// the layer does not declare.
//
//	redacting    (pkg/store/redacting, New)  declares SaveHistory: every write of a history is
//	                                         redacted before it goes down; the other writes
//	                                         store what they are given (the table says why
//	                                         each carries no conversation text).
//	[embedding]  (pkg/store/embedding, New)  declares SaveHistory and PutKnowledge: embeds
//	                                         what the save added, and an entry's text with the
//	                                         entry (with an embedder; without one, no layer).
//	[alertcache] (pkg/store/alertcache, New) declares GetAlert: answers from local copies (cloud
//	                                         only; above the retries, see its package doc).
//	resilient    (pkg/store/resilient, New)  declares every method: each that reaches the
//	                                         backend runs under one budget (--store-timeout), a
//	                                         timeout per attempt and a circuit breaker (one for
//	                                         reads, one for writes); transient errors are
//	                                         retried (classify.go), others returned at once.
//	backend      (pkg/store/local | pkg/store/cloud) does the work.
//
// Sessions write below redaction (they redact themselves) but above the alert cache and the
// retries (workspace.Store.Sessions). The outage spool (pkg/store/spool) is no layer: it sits
// beside the stack in pkg/workspace's Store, which uploads its turns through the stack's top
// (Flush) and shows them in listings (PendingHistories). Properties of the backend that need no
// request are no methods either (the largest alert it takes: workspace.Store.MaxAlertSize).
//
// An example, followed through the code: `alertchat history search` on the cloud store calls
// SearchText on the redacting layer, which passes it (embedded, unseen) through the embedding
// layer and the alert cache to resilient, which calls cloud.Store.SearchText: one Firestore
// array-contains-any query. When Firestore answers 503, the query's stream ends with gRPC codes.Unavailable (the Firestore client
// retries RunQuery only when the stream cannot be opened, not on an answer read from it); the
// backend wraps it ("failed to search histories") and resilient's IsTransient finds the
// Unavailable status under the wrapping: transient. The call is tried again after a full-jitter
// backoff (a wait drawn below 200 ms, doubling to at most 2 s) until the next wait would end
// past the budget (10 s by default, --store-timeout): with prompt 503s that is about a dozen
// attempts (8 to about 20, as the jitter falls) in 9 to 10 s; with a server that hangs,
// attempts of 5 s each (the attempt timeout), two. After 3 consecutive failed
// attempts the read breaker opens, but the call in flight finishes its own retries; when it
// gives up it trips the breaker (open for 30 s, remembered in the data directory so that the
// next commands know), and the command fails with exit code 1 and
// "Error: storage search failed: failed to search histories: rpc error: code = Unavailable ...".
// A read within the cool-down, in this process or the next, fails at once with "storage search
// not attempted: storage backend unavailable: recent attempts failed, next try in 30s", without
// a request; after it, one call probes with a single attempt and closes the breaker when it
// succeeds. Writes have a breaker of their own, so saves go on while searches fail.

// Counter counts histories without listing them.
type Counter interface {
	// CountHistories returns how many histories q selects, its cursor and limit aside.
	CountHistories(ctx context.Context, q HistoryQuery) (int, error)
}

// AlertCounter counts alerts without listing them.
type AlertCounter interface {
	// CountAlerts returns how many alerts q selects, its cursor and limit aside.
	CountAlerts(ctx context.Context, q AlertQuery) (int, error)
}
