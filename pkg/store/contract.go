package store

import "slices"

// Kind is how a method of Store reaches the backend, which is what the retry layer
// (store/resilient) does with it.
type Kind int

const (
	// KindRead makes requests that change nothing: run under the read breaker, retried.
	KindRead Kind = iota + 1
	// KindWrite changes what is stored and is safe to try again (the backends make it
	// idempotent or conditional): run under the write breaker, retried.
	KindWrite
	// KindOnce changes what is stored and cannot tell its own lost success from a missing
	// record: run under the write breaker, tried once.
	KindOnce
	// KindLocal makes no request.
	KindLocal
)

func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	case KindOnce:
		return "once"
	case KindLocal:
		return "local"
	}
	return "unknown"
}

// Writes reports whether the kind changes what is stored.
func (k Kind) Writes() bool { return k == KindWrite || k == KindOnce }

// Method is a row of the contract table: one method of Store and what it is.
type Method struct {
	// Name is the method's name in Store.
	Name string
	Kind Kind
	// Op names the call in errors ("storage <op> failed"); empty for KindLocal.
	Op string
	// HistoryText says that the method writes text of a conversation (a transcript, a title, a
	// summary, a note) given by its caller: the command line's redacting layer
	// (store/redacting) must redact it before it goes down.
	HistoryText bool
}

// contract is every method of Store, one row each (TestContractIsStore keeps them equal). A
// method added to Store gets its row here, and with it how the retry layer runs it and whether
// the redaction layer must see it; the layers that change only some methods embed Store and
// need nothing more.
//
// Writes are KindWrite because the backends make them idempotent or conditional (a save
// carries its ContentVersion across attempts, an alert's ID is its content's, an embedding, a
// batch reservation or an alert's triage is conditional on what it replaces); moving aside and dropping metadata are
// KindOnce: a retry could not tell its own lost success from a missing object. WorkspaceKey is
// a read, though it writes once in a workspace's life: the first call creates the key, and
// that write is conditional in both backends (an insert that leaves an existing key alone, a
// create that fails on an existing document and then reads it), so a retry of an attempt whose
// creation was lost reads the key that attempt made instead of making another; every later
// call is one read of the key.
//
// SaveHistory and PutKnowledge carry text people and the model wrote (a conversation; a team's
// note and its indicators); no other write does: alerts are the evidence under analysis and
// are stored as given; an alert's triage is a history ID, a verdict, a confidence, a model and
// a time (its evidence is the history's, redacted with it by SaveHistory); embeddings and the
// index are computed from what is stored, already redacted; batch records hold names, models, hashes, states and counts; deletes and repairs
// remove or move what is stored (a drop's reason is the checker's own words).
var contract = [...]Method{
	{"GetHistory", KindRead, "read", false},
	{"GetHistoryMeta", KindRead, "read", false},
	{"SaveHistory", KindWrite, "save", true},
	{"DeleteHistory", KindWrite, "delete", false},
	{"ListHistories", KindRead, "list", false},
	{"FindHistories", KindRead, "lookup", false},
	{"CountHistories", KindRead, "count", false},
	{"PutAlert", KindWrite, "save", false},
	{"PutAlerts", KindWrite, "save", false},
	{"TriageAlert", KindWrite, "save", false},
	{"AlertTriage", KindRead, "read", false},
	{"GetAlert", KindRead, "read", false},
	{"ListAlerts", KindRead, "list", false},
	{"FindAlerts", KindRead, "lookup", false},
	{"CountAlerts", KindRead, "count", false},
	{"SearchAlerts", KindRead, "search", false},
	{"AlertInvestigations", KindRead, "count", false},
	{"SearchText", KindRead, "search", false},
	{"SearchVector", KindRead, "search", false},
	{"PutEmbedding", KindWrite, "save", false},
	{"EmbeddedCount", KindRead, "read", false},
	{"Unindexed", KindRead, "check", false},
	{"Reindex", KindWrite, "save", false},
	{"PutBatchJob", KindWrite, "save", false},
	{"GetBatchJob", KindRead, "read", false},
	{"FindBatchJob", KindRead, "lookup", false},
	{"ListBatchJobs", KindRead, "list", false},
	{"PutBatchReservation", KindWrite, "save", false},
	// An entry is written whole under its own ID (an upsert), so a retry of a write whose
	// answer was lost writes the same entry once more, never a second one. Its text is a
	// person's note, redacted like a conversation's.
	{"PutKnowledge", KindWrite, "save", true},
	{"GetKnowledge", KindRead, "read", false},
	{"ListKnowledge", KindRead, "list", false},
	{"MatchKnowledge", KindRead, "search", false},
	{"NearestKnowledge", KindRead, "search", false},
	{"ListObjects", KindRead, "check", false},
	{"ListHistoryIDs", KindRead, "check", false},
	{"MetadataExists", KindRead, "check", false},
	{"ReadObject", KindRead, "read", false},
	{"MoveAside", KindOnce, "repair", false},
	{"DropMetadata", KindOnce, "repair", false},
	{"WorkspaceKey", KindRead, "key read", false},
	{"Close", KindLocal, "", false},
}

// Contract returns the contract table: every method of Store, in the order above.
func Contract() []Method { return slices.Clone(contract[:]) }

// MethodNamed returns the row of the method of Store called name.
func MethodNamed(name string) (Method, bool) {
	i := slices.IndexFunc(contract[:], func(m Method) bool { return m.Name == name })
	if i < 0 {
		return Method{}, false
	}
	return contract[i], true
}
