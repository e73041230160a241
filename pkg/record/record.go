// Package record holds the records alertchat stores: alerts and conversation histories.
package record

import (
	"encoding/json"
	"slices"
	"time"

	"google.golang.org/genai"
)

// AlertID identifies an alert. It is derived from the alert's canonical JSON, so adding the
// same alert twice yields the same ID.
type AlertID string

// HistoryID identifies a conversation history; a random UUID.
type HistoryID string

// Alert is a security alert stored as the analyst gave it: it is the evidence under analysis.
type Alert struct {
	ID        AlertID         `json:"id"`
	Title     string          `json:"title,omitempty"`
	Data      json.RawMessage `json:"data"`
	CreatedAt time.Time       `json:"created_at"`
	// Severity is one of critical, high, medium, low, info ("" when the alert does not say);
	// Source names the tool whose schema it follows (guardduty, securityhub, scc, suricata,
	// falco, ...; "" for JSON of no known schema); Time is when the tool says it happened.
	// All three are read from Data when the alert is added.
	Severity string    `json:"severity,omitempty"`
	Source   string    `json:"source,omitempty"`
	Time     time.Time `json:"time,omitzero"`
	// Status is set when the finding's tool marks it closed: resolved, suppressed or archived
	// (Security Hub), archived (GuardDuty), inactive (Security Command Center); "" is open.
	Status string `json:"status,omitempty"`
	// Triage is the proposal of the alert's first look (alertchat triage), nil while it has
	// none. Listings (store.AlertQuery) carry it, and store.AlertTriager reads and sets it;
	// GetAlert returns the alert as stored, without it (the alert itself never changes).
	Triage *AlertTriage `json:"triage,omitempty"`
}

// Usage is the token usage reported by the model, summed over a history's turns. OutputTokens
// counts the answers' tokens, ThoughtTokens the model's thinking (billed as output too).
type Usage struct {
	InputTokens   int64 `json:"input_tokens" firestore:"input_tokens"`
	OutputTokens  int64 `json:"output_tokens" firestore:"output_tokens"`
	ThoughtTokens int64 `json:"thought_tokens" firestore:"thought_tokens"`
}

// Add sums u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens,
		ThoughtTokens: u.ThoughtTokens + o.ThoughtTokens}
}

// Total is every token counted: input, answer and thinking.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens + u.ThoughtTokens }

// Title sources: a manual title is never overwritten by a generated one.
const (
	TitleGenerated = "generated"
	TitleFallback  = "fallback"
	TitleManual    = "manual"
)

// History is one conversation about one alert: metadata plus the transcript.
//
// Revision is the optimistic-concurrency token: a store saves a history only when the stored
// revision still equals the one the caller loaded (0 for a history not yet stored), then bumps it.
//
// A history with a ParentID is a fork: a writer that lost a concurrent save (store.ErrConflict)
// keeps its turns in a new history instead of overwriting the other writer's. ForkPoint is how
// many leading contents the fork shares with its parent; its own turns are Contents[ForkPoint:].
// So every turn of a conversation is counted exactly once as the parent's contents plus, for each
// fork, the contents after its ForkPoint.
type History struct {
	ID           HistoryID      `json:"id"`
	Workspace    string         `json:"workspace"`
	AlertID      AlertID        `json:"alert_id"`
	Title        string         `json:"title"`
	TitleSource  string         `json:"title_source,omitempty"`
	ParentID     HistoryID      `json:"parent_id,omitempty"`
	ForkPoint    int            `json:"fork_point,omitempty"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	MessageCount int            `json:"message_count"`
	Usage        Usage          `json:"usage"`
	Redactions   map[string]int `json:"redactions,omitempty"`
	// ToolCalls counts the model's tool calls over the history's questions.
	ToolCalls int `json:"tool_calls,omitempty"`
	// ToolApprovals say, for each call of an MCP tool, who allowed it or that it was denied,
	// in call order. Built-in tools never ask and are not listed. The transcript itself stays
	// exactly what Gemini is sent; this is the record beside it.
	ToolApprovals []ToolApproval `json:"tool_approvals,omitempty"`
	// RedactedCount is how many leading contents have already passed redaction, so a save scans
	// only what is new.
	RedactedCount int   `json:"redacted_count,omitempty"`
	Revision      int64 `json:"revision"`
	// Summary stands for the transcript's leading contents in requests to the model once the
	// conversation outgrew the context budget; the transcript itself stays whole.
	Summary *Summary `json:"summary,omitempty"`
	// Questions say who asked each question, in order (see Question); Resolution is the
	// investigation's conclusion, nil while it is open.
	Questions  []Question  `json:"questions,omitempty"`
	Resolution *Resolution `json:"resolution,omitempty"`
	// Triage is the verdict proposed when the alert was triaged on intake, nil for any other
	// investigation. It is a proposal, never the resolution: the history stays open.
	// TriageAgreed is set when the history is resolved, saying whether the analyst's verdict
	// is the proposed one; nil while open or without a triage.
	Triage       *Triage `json:"triage,omitempty"`
	TriageAgreed *bool   `json:"triage_agreed,omitempty"`
	// KnowledgeIDs are the team knowledge entries given to the model in this investigation, in
	// the order first given, so an audit can see what its answers rested on.
	KnowledgeIDs []KnowledgeID `json:"knowledge_ids,omitempty"`

	// Contents is the transcript, stored as a separate object ({prefix}histories/{id}.json).
	Contents []*genai.Content `json:"-"`

	// ContentVersion is a store-private token of the transcript object that was loaded or last
	// written (the object generation in Cloud Storage); callers carry it untouched.
	ContentVersion int64 `json:"-"`
}

// ToolApproval is the decision about one call of an MCP tool.
type ToolApproval struct {
	// Tool is the name the model called (mcp_<server>_<tool>); Server the configured server.
	Tool   string `json:"tool"`
	Server string `json:"server"`
	// Decision is trusted (the server's config says "trust": true), approved (once),
	// approved_always (for the rest of the session) or denied. For a call held back by the
	// egress guard (Egress set) it is what was decided there: approved when the user let it
	// go, denied when it was not sent, whatever let the tool run before.
	Decision string `json:"decision"`
	// Asked is set when the user was asked on the terminal for this call; a call approved by an
	// earlier "always", a trusted one, or one denied because nobody could be asked was not. For
	// a held call it says whether the user was asked at the egress question.
	Asked bool      `json:"asked"`
	At    time.Time `json:"at"`
	// Content is the index in the transcript of the model content holding the call, Call the
	// call's index among that content's function calls; CallID the call's id when it has one.
	Content int    `json:"content"`
	Call    int    `json:"call"`
	CallID  string `json:"call_id,omitempty"`
	// Elicitations are the server's requests for input during the call and what became of
	// them; what the user typed is not kept.
	Elicitations []Elicitation `json:"elicitations,omitempty"`
	// Egress is set for a call of a public-only server held back because its arguments would
	// send internal data; nil for a call that was not held.
	Egress *EgressHold `json:"egress,omitempty"`
}

// EgressHold is a call held back by the egress guard of a public-only server.
type EgressHold struct {
	// Kinds are the kinds of what would have left ("internal address", "internal host",
	// "e-mail address", "API key", ...), each once, in the order found. The values are not
	// kept: the call in the transcript holds them, redacted as the transcript is.
	Kinds []string `json:"kinds"`
	// Sent is set when the user let the call go anyway.
	Sent bool `json:"sent"`
}

// Elicitation is an MCP server's request for input during a call (elicitation/create).
type Elicitation struct {
	// Action is accept, decline or cancel.
	Action string `json:"action"`
	// Fields are the names of the fields asked for.
	Fields []string `json:"fields,omitempty"`
	// Asked is set when the user was asked on the terminal.
	Asked bool `json:"asked"`
}

// Tool approval decisions (ToolApproval.Decision).
const (
	ApprovalTrusted        = "trusted"
	ApprovalApproved       = "approved"
	ApprovalApprovedAlways = "approved_always"
	ApprovalDenied         = "denied"
)

// Summary is a model-written summary of a history's first CoversCount contents.
type Summary struct {
	Text        string    `json:"text"`
	CoversCount int       `json:"covers_count"`
	CreatedAt   time.Time `json:"created_at"`
}

// Meta returns a copy of h without its transcript.
func (h *History) Meta() *History {
	c := *h
	c.Contents = nil
	// The copy's own conclusion and questions: changing one history never changes the other.
	if h.Resolution != nil {
		r := *h.Resolution
		c.Resolution = &r
	}
	if h.Triage != nil {
		t := *h.Triage
		t.Evidence = slices.Clone(t.Evidence)
		c.Triage = &t
	}
	if h.TriageAgreed != nil {
		agreed := *h.TriageAgreed
		c.TriageAgreed = &agreed
	}
	c.Questions = slices.Clip(h.Questions)
	c.KnowledgeIDs = slices.Clip(h.KnowledgeIDs)
	return &c
}

// BatchJob is a job of the Gemini Batch API that a remote batch created: recorded the moment
// it exists, so that the same input asked again finds it instead of paying twice.
type BatchJob struct {
	// ID is the job's resource name as the service gives it ("batches/abc123").
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	Model     string `json:"model"`
	// InputSHA256 is the hex SHA-256 of the input file's bytes: with Workspace and Model it
	// says whether a job answers the same input.
	InputSHA256 string `json:"input_sha256"`
	// State is the service's job state (genai.JobState, "JOB_STATE_RUNNING", ...).
	State string `json:"state"`
	// Requests is how many questions the job asks; Succeeded and Failed how many of them have
	// an answer or an error once it is done.
	Requests  int `json:"requests"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// Collected is set once every answer of the job has been saved as a history.
	Collected bool `json:"collected,omitempty"`
	// InputFile names the job's uploaded input, deleted once the job is collected: a Files API
	// name ("files/abc") or, on Vertex AI, a gs:// URI. Empty for inlined requests.
	InputFile string    `json:"input_file,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// BatchReservation says that a run is submitting the job of an input. It is made, by a
// conditional create keyed on workspace, model and input SHA-256, before anything is
// submitted, so that a second run of the same input waits for the first one's job instead of
// submitting (and paying for) its own.
type BatchReservation struct {
	Workspace   string `json:"workspace"`
	Model       string `json:"model"`
	InputSHA256 string `json:"input_sha256"`
	// Owner is the reserving run's random ID, and Beat counts the signs of life it gives while
	// it prepares and submits the job: a reservation whose Owner and Beat stay the same for
	// long is one whose run died, and is taken over.
	Owner string `json:"owner"`
	Beat  int64  `json:"beat"`
	// Job is the job the owner submitted, set once the job is recorded; Ended is set when the
	// owner stopped without a job (bad input, a failed upload): the reservation is free.
	Job       string    `json:"job,omitempty"`
	Ended     bool      `json:"ended,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}
