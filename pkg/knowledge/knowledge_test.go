package knowledge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/sentinel"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/redacting"
	"github.com/alertchat/alertchat/pkg/tokenkey"
)

// stack is a local store under the redaction of every write with the workspace's keyed
// tokens, as the command line's stack writes entries.
type stack struct {
	store.Store
	eng *redact.Redactor
}

func newStack(t testing.TB) stack {
	t.Helper()
	ctx := context.Background()
	b, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	eng, err := tokenkey.Redactor(ctx, b, "", redact.AllTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	return stack{Store: redacting.New(b, redacthist.Engine(eng)), eng: eng}
}

func (s stack) add(t testing.TB, d knowledge.Draft, at time.Time) *record.Knowledge {
	t.Helper()
	e, err := knowledge.New(d, s.eng, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutKnowledge(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	return e
}

func (s stack) retriever(now time.Time) *knowledge.Retriever {
	return &knowledge.Retriever{Store: s, Engine: func() *redact.Redactor { return s.eng }, Now: func() time.Time { return now }}
}

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

func guardDuty(ip string) *record.Alert {
	data := fmt.Sprintf(`{"SchemaVersion":"2.0","Arn":"arn:aws:guardduty:us-east-1:123456789012:detector/d/finding/f","Type":"Recon:EC2/PortProbeUnprotectedPort","Severity":5,
"Service":{"Action":{"PortProbeAction":{"PortProbeDetails":[{"RemoteIpDetails":{"IpAddressV4":%q}}]}}}}`, ip)
	return &record.Alert{ID: "a1", Data: json.RawMessage(data)}
}

func ids(es []*record.Knowledge) []record.KnowledgeID { return knowledge.IDs(es) }

// A raw value in an alert matches the entry that stores it as its keyed token; an unrelated
// entry is not given; a retired or expired one never is.
func TestForAlertMatchesRawValueToToken(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	scanner := s.add(t, knowledge.Draft{Text: "198.51.100.23 is our external scanner (Qualys), Sundays", Author: "alice"}, t0)
	unrelated := s.add(t, knowledge.Draft{Text: "203.0.113.99 is the VPN gateway", Author: "bob"}, t0)
	expired := s.add(t, knowledge.Draft{Text: "198.51.100.23 was a contractor's laptop", Expires: "1d"}, t0)
	retired := s.add(t, knowledge.Draft{Text: "198.51.100.23 belongs to the red team"}, t0)
	now := store.Now()
	retired.RetiredAt = &now
	if err := s.PutKnowledge(context.Background(), retired); err != nil {
		t.Fatal(err)
	}
	stored, err := s.GetKnowledge(context.Background(), string(scanner.ID))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored.Text, "198.51.100.23") || slices.Contains(stored.Indicators, "198.51.100.23") {
		t.Fatalf("stored raw: %+v", stored)
	}
	got, err := s.retriever(t0.Add(48*time.Hour)).ForAlert(context.Background(), guardDuty("198.51.100.23"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []record.KnowledgeID{scanner.ID}; !slices.Equal(ids(got), want) {
		t.Fatalf("given %v, want only %s (unrelated %s, expired %s, retired %s)", ids(got), scanner.ID, unrelated.ID, expired.ID, retired.ID)
	}
	if got[0].Text != stored.Text {
		t.Errorf("given %q, stored %q", got[0].Text, stored.Text)
	}
}

func TestForAlertByTypeAndAtMostEight(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	var byType []record.KnowledgeID
	for i := range 10 {
		e := s.add(t, knowledge.Draft{Text: fmt.Sprintf("note %d on port probes", i), AlertTypes: []string{"recon:ec2/portprobeunprotectedport"}}, t0.Add(time.Duration(i)*time.Minute))
		byType = append(byType, e.ID)
	}
	byIP := s.add(t, knowledge.Draft{Text: "the scanner", Indicators: []string{"198.51.100.23"}}, t0)
	got, err := s.retriever(t0.Add(time.Hour)).ForAlert(context.Background(), guardDuty("198.51.100.23"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != knowledge.MaxGiven {
		t.Fatalf("given %d, want %d", len(got), knowledge.MaxGiven)
	}
	if got[0].ID != byIP.ID {
		t.Errorf("first given %s, want the one sharing the indicator %s", got[0].ID, byIP.ID)
	}
	// Then the newest by type.
	if got[1].ID != byType[9] {
		t.Errorf("second given %s, want the newest of the type %s", got[1].ID, byType[9])
	}
}

func TestSearchFindsByRawValueAndWords(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	mail := s.add(t, knowledge.Draft{Text: "ops@example.com receives the backup reports"}, t0)
	job := s.add(t, knowledge.Draft{Text: "Falco fires on the nightly backup job", AlertTypes: []string{"Write below etc"}}, t0.Add(time.Minute))
	r := s.retriever(t0.Add(time.Hour))
	for _, tc := range []struct {
		query string
		want  []record.KnowledgeID
	}{
		{"ops@example.com", []record.KnowledgeID{mail.ID}},
		{"nightly backup", []record.KnowledgeID{job.ID, mail.ID}},
		{"unrelated words", nil},
	} {
		got, err := r.Search(context.Background(), tc.query, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("search %q: %v, want %v", tc.query, ids(got), tc.want)
		}
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	t.Parallel()
	eng := redact.New(redact.AllTypes()...)
	for _, tc := range []struct {
		name string
		d    knowledge.Draft
		want string
	}{
		{"empty text", knowledge.Draft{Text: "  \n"}, "empty"},
		{"text over 2000 characters", knowledge.Draft{Text: strings.Repeat("é", 2001)}, "too long: 2001 characters"},
		{"unparsable expiry", knowledge.Draft{Text: "x", Expires: "soon"}, `invalid --expires "soon"`},
		{"negative expiry", knowledge.Draft{Text: "x", Expires: "-3d"}, "invalid --expires"},
		{"alert type on two lines", knowledge.Draft{Text: "x", AlertTypes: []string{"Recon\nx"}}, "invalid alert type"},
		{"empty alert type", knowledge.Draft{Text: "x", AlertTypes: []string{" "}}, "alert type is empty"},
		{"indicator with spaces", knowledge.Draft{Text: "x", Indicators: []string{"a b"}}, "invalid --indicator"},
	} {
		_, err := knowledge.New(tc.d, eng, t0)
		if !errors.Is(err, sentinel.InvalidRequest) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an invalid request saying %q", tc.name, err, tc.want)
		}
	}
	// 2,000 characters exactly is fine.
	if _, err := knowledge.New(knowledge.Draft{Text: strings.Repeat("é", 2000)}, eng, t0); err != nil {
		t.Errorf("2000 characters: %v", err)
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration // 0: never
	}{
		{"", record.DefaultKnowledgeTTL},
		{"90d", 90 * 24 * time.Hour},
		{"2w", 14 * 24 * time.Hour},
		{"1w3d", 10 * 24 * time.Hour},
		{"12h", 12 * time.Hour},
		{"never", 0},
		{"NEVER", 0},
	} {
		got, err := knowledge.ParseExpires(tc.in, t0)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		switch {
		case tc.want == 0 && got != nil:
			t.Errorf("%q: expires %v, want never", tc.in, got)
		case tc.want != 0 && (got == nil || !got.Equal(t0.Add(tc.want))):
			t.Errorf("%q: expires %v, want %v", tc.in, got, t0.Add(tc.want))
		}
	}
}

func TestIndicatorsFoundInText(t *testing.T) {
	t.Parallel()
	eng := redact.New(redact.AllTypes()...)
	got, err := knowledge.Indicators("198.51.100.23 and scanner.example.com; hash d41d8cd98f00b204e9800998ecf8427e, arn:aws:iam::123456789012:role/Scanner", []string{"i-0abc1234def567890"}, eng)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"i-0abc1234def567890", "198.51.100.23", "scanner.example.com", "d41d8cd98f00b204e9800998ecf8427e", "arn:aws:iam::123456789012:role/Scanner"} {
		if !slices.Contains(got, want) {
			t.Errorf("indicators %q lack %q", got, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	e := &record.Knowledge{ID: "1a2b3c4d-0000-4000-8000-000000000000", Text: "our\nscanner", Author: "alice", CreatedAt: t0,
		Source: &record.KnowledgeSource{HistoryID: "6e6f461a-1111-4222-8333-444455556666", Verdict: record.VerdictFalsePositive}}
	if got, want := knowledge.Describe(e), "[K-1a2b3c4d] as of 2026-11-20, by alice, from history 6e6f461a (false_positive): our scanner"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	e.Source = nil
	if got := knowledge.Instruction([]*record.Knowledge{e}); !strings.Contains(got, "may be outdated") || !strings.Contains(got, "cite the ID") ||
		!strings.Contains(got, "[K-1a2b3c4d] as of 2026-11-20, by alice, added by hand: our scanner") {
		t.Errorf("Instruction = %q", got)
	}
	if knowledge.Instruction(nil) != "" {
		t.Error("an instruction without notes")
	}
}
