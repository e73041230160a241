// Package storetest is the conformance suite every store.Store implementation runs: the same
// test functions against the embedded local store and against Firestore + Cloud Storage. For
// the layers of the command line's stack, Overrides tells which methods a layer declares.
package storetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Harness gives the suite one fresh backend. Every Open of the same Harness shares that backend.
type Harness struct {
	// Open returns a store of the given workspace on the shared backend.
	Open func(t testing.TB, workspace string) store.Store
	// Prefix is the object key prefix the stores were opened with.
	Prefix string
	// ReadObject reads a transcript object as an outside hand would; ok is false when missing.
	ReadObject func(t testing.TB, key string) (data []byte, ok bool)
	// WriteObject overwrites a transcript object as an outside hand would (to corrupt it).
	WriteObject func(t testing.TB, key string, data []byte)
}

// Run runs the whole suite. newHarness is called once per test for a fresh backend.
func Run(t *testing.T, newHarness func(t testing.TB) *Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"RoundTripEveryPartKind", testRoundTrip},
		{"MetadataRoundTrip", testMetadataRoundTrip},
		{"WorkspaceIsolation", testWorkspaceIsolation},
		{"ConflictingSaves", testConflictingSaves},
		{"ConflictingCreates", testConflictingCreates},
		{"StaleSaveWritesNothing", testStaleSaveWritesNothing},
		{"SaveAfterAnotherWriter", testSaveAfterAnotherWriter},
		{"SaveAfterDelete", testSaveAfterDelete},
		{"Pagination", testPagination},
		{"ListByAlertAndAge", testListByAlertAndAge},
		{"Delete", testDelete},
		{"CorruptTranscript", testCorruptTranscript},
		{"NotFound", testNotFound},
		{"FindByPrefix", testFindByPrefix},
		{"Alerts", testAlerts},
		{"FindAlertsByPrefix", testFindAlertsByPrefix},
		{"Count", testCount},
		{"AlertSearch", testAlertSearch},
		{"AlertFacts", testAlertFacts},
		{"PutAlerts", testPutAlerts},
		{"AlertFilters", testAlertFilters},
		{"BatchJobs", testBatchJobs},
		{"Knowledge", testKnowledge},
		{"VerdictsRoundTrip", testVerdictsRoundTrip},
		{"ListByVerdictAndAnalyst", testListByVerdictAndAnalyst},
		{"ConcurrentResolveAndTurn", testConcurrentResolveAndTurn},
		{"ResolveOtherWorkspace", testResolveOtherWorkspace},
		{"AlertInvestigations", testAlertInvestigations},
		{"AlertTriage", testAlertTriage},
		{"AlertTriageRace", testAlertTriageRace},
		{"HistoryTriage", testHistoryTriage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newHarness(t))
		})
	}
}

// EveryPartKind is a transcript holding every genai.Part kind the product stores.
func EveryPartKind() []*genai.Content {
	return []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{Text: "What does this alert mean? 日本語も"},
			{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 255}}},
			{FileData: &genai.FileData{MIMEType: "application/pdf", FileURI: "gs://bucket/report.pdf"}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "Let me think.", Thought: true, ThoughtSignature: []byte{1, 2, 3, 4, 0, 200}},
			{FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "lookup_ip", Args: map[string]any{
				"ip": "192.0.2.1", "nested": map[string]any{"list": []any{"a", 1.5, true, nil}},
			}}},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "call-1", Name: "lookup_ip", Response: map[string]any{
				"output": map[string]any{"country": "JP", "asn": 64500.0},
			}}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{ExecutableCode: &genai.ExecutableCode{Language: genai.LanguagePython, Code: "print(1+1)"}},
			{CodeExecutionResult: &genai.CodeExecutionResult{Outcome: genai.OutcomeOK, Output: "2\n"}},
			{Text: "The instance queried a known bad domain.", ThoughtSignature: []byte("sig")},
		}},
	}
}

// Transcript returns a text transcript of roughly size bytes, for benchmarks.
func Transcript(size int) []*genai.Content {
	const turn = 4096
	line := strings.Repeat("The EC2 instance i-99999999 queried 3322.org; GuardDuty rated it 8. ", 64)[:turn]
	var out []*genai.Content
	for n := 0; n < size; n += turn {
		role := genai.RoleUser
		if len(out)%2 == 1 {
			role = genai.RoleModel
		}
		out = append(out, genai.NewContentFromText(line, genai.Role(role)))
	}
	return out
}

// NewHistory returns an unsaved history of alert with the given transcript.
func NewHistory(alert record.AlertID, contents []*genai.Content) *record.History {
	now := store.Now()
	return &record.History{
		ID: store.NewHistoryID(), AlertID: alert, Title: "t", CreatedAt: now, UpdatedAt: now,
		MessageCount: len(contents), Contents: contents,
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func Save(t testing.TB, s store.Store, h *record.History) {
	t.Helper()
	if err := s.SaveHistory(context.Background(), h); err != nil {
		t.Fatalf("save %s: %v", h.ID, err)
	}
}
