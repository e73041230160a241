package storetest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Knowledge contract (store.KnowledgeBase): an entry is written whole under its ID in its
// workspace, read back as written, found by a unique ID prefix, listed newest first (retired
// ones only with All), and matched by its keys while it is not retired.

func testKnowledge(t *testing.T, h *Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, a, b store.Store)
	}{
		{"RoundTrip", testKnowledgeRoundTrip},
		{"Prefix", testKnowledgePrefix},
		{"ListOrderAndRetired", testKnowledgeList},
		{"MatchByKeys", testKnowledgeMatch},
		{"RewriteIsOneEntry", testKnowledgeRewrite},
		{"WorkspaceIsolation", testKnowledgeIsolation},
		{"NearestByMeaning", testKnowledgeNearest},
		{"GivenByMeaning", testKnowledgeGivenByMeaning},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, h.Open(t, "k"+tc.name+"-a"), h.Open(t, "k"+tc.name+"-b"))
		})
	}
}

// KnowledgeAt is an entry created at base+minutes.
func KnowledgeAt(id, text string, minutes int) *record.Knowledge {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
	return &record.Knowledge{ID: record.KnowledgeID(id), Text: text, Indicators: []string{}, AlertTypes: []string{},
		Author: "alice", CreatedAt: at}
}

func putEntry(t *testing.T, s store.Store, e *record.Knowledge) {
	t.Helper()
	if err := s.PutKnowledge(context.Background(), e); err != nil {
		t.Fatalf("PutKnowledge(%s): %v", e.ID, err)
	}
}

func entryIDs(es []*record.Knowledge) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.ID)
	}
	return out
}

func testKnowledgeRoundTrip(t *testing.T, s, _ store.Store) {
	ctx := context.Background()
	exp := time.Date(2027, 5, 19, 9, 0, 0, 123000, time.UTC)
	e := KnowledgeAt("6f1c2d3e-0000-4000-8000-000000000001", "203.0.113.9 is our Qualys scanner, Sundays", 0)
	e.Indicators = []string{"[REDACTED_IP_abc123]", "scanner.example.com"}
	e.AlertTypes = []string{"Recon:EC2/PortProbeUnprotectedPort"}
	e.Source = &record.KnowledgeSource{HistoryID: "0b7e2f4a-1111-4222-8333-444455556666", Verdict: record.VerdictFalsePositive}
	e.ExpiresAt = &exp
	putEntry(t, s, e)
	got, err := s.GetKnowledge(ctx, string(e.ID))
	if err != nil {
		t.Fatal(err)
	}
	want := *e
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("read back %+v, want %+v", got, &want)
	}
	if got.Active(exp.Add(-time.Second)) != true || got.Active(exp) {
		t.Errorf("Active around the expiry: %v, %v", got.Active(exp.Add(-time.Second)), got.Active(exp))
	}
}

func testKnowledgePrefix(t *testing.T, s, _ store.Store) {
	ctx := context.Background()
	putEntry(t, s, KnowledgeAt("aaaa1111-0000-4000-8000-000000000001", "one", 0))
	putEntry(t, s, KnowledgeAt("aaaa1111-0000-4000-8000-000000000002", "two", 1))
	putEntry(t, s, KnowledgeAt("bbbb2222-0000-4000-8000-000000000003", "three", 2))
	got, err := s.GetKnowledge(ctx, "bbbb2222")
	if err != nil || got.Text != "three" {
		t.Fatalf("unique prefix: %v, %v", got, err)
	}
	if _, err := s.GetKnowledge(ctx, "aaaa1111"); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("ambiguous prefix: %v, want ErrInvalid", err)
	}
	if _, err := s.GetKnowledge(ctx, "bbbb"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("prefix shorter than 8: %v, want ErrNotFound", err)
	}
	if _, err := s.GetKnowledge(ctx, "cccc3333"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown: %v, want ErrNotFound", err)
	}
}

func testKnowledgeList(t *testing.T, s, _ store.Store) {
	ctx := context.Background()
	putEntry(t, s, KnowledgeAt("c1000000-0000-4000-8000-000000000001", "oldest", 0))
	retired := KnowledgeAt("c2000000-0000-4000-8000-000000000002", "retired", 1)
	at := retired.CreatedAt.Add(time.Hour)
	retired.RetiredAt = &at
	putEntry(t, s, retired)
	putEntry(t, s, KnowledgeAt("c3000000-0000-4000-8000-000000000003", "newest", 2))
	active, err := s.ListKnowledge(ctx, store.KnowledgeQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entryIDs(active), []string{"c3000000-0000-4000-8000-000000000003", "c1000000-0000-4000-8000-000000000001"}; !slices.Equal(got, want) {
		t.Errorf("active list %v, want %v", got, want)
	}
	all, err := s.ListKnowledge(ctx, store.KnowledgeQuery{All: true, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entryIDs(all), []string{"c3000000-0000-4000-8000-000000000003", "c2000000-0000-4000-8000-000000000002"}; !slices.Equal(got, want) {
		t.Errorf("--all list limited to 2: %v, want %v", got, want)
	}
}

func testKnowledgeMatch(t *testing.T, s, _ store.Store) {
	ctx := context.Background()
	byIP := KnowledgeAt("d1000000-0000-4000-8000-000000000001", "our scanner", 0)
	byIP.Indicators = []string{"[REDACTED_IP_k3v9q2]"}
	byType := KnowledgeAt("d2000000-0000-4000-8000-000000000002", "fires on the nightly backup job", 1)
	byType.AlertTypes = []string{"Write below etc"}
	gone := KnowledgeAt("d3000000-0000-4000-8000-000000000003", "our old scanner", 2)
	gone.Indicators = []string{"[REDACTED_IP_k3v9q2]"}
	at := gone.CreatedAt
	gone.RetiredAt = &at
	for _, e := range []*record.Knowledge{byIP, byType, gone} {
		putEntry(t, s, e)
	}
	match := func(keys ...string) []string {
		t.Helper()
		es, err := s.MatchKnowledge(ctx, keys, 10)
		if err != nil {
			t.Fatal(err)
		}
		ids := entryIDs(es)
		slices.Sort(ids)
		return ids
	}
	if got := match(store.IndicatorKey("[REDACTED_IP_k3v9q2]")); !slices.Equal(got, []string{string(byIP.ID)}) {
		t.Errorf("by indicator: %v, want only %s (the retired one is never matched)", got, byIP.ID)
	}
	if got := match(store.AlertTypeKey("write below ETC")); !slices.Equal(got, []string{string(byType.ID)}) {
		t.Errorf("by alert type, any case: %v", got)
	}
	if got := match(store.WordKey("backup"), store.WordKey("scanner")); !slices.Equal(got, []string{string(byIP.ID), string(byType.ID)}) {
		t.Errorf("by words: %v", got)
	}
	if got := match(store.WordKey("nothing")); len(got) != 0 {
		t.Errorf("unknown key matched %v", got)
	}
	// More keys than one query of the cloud store takes.
	var many []string
	for i := range 70 {
		many = append(many, store.WordKey("filler"+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	if got := match(append(many, store.WordKey("backup"))...); !slices.Equal(got, []string{string(byType.ID)}) {
		t.Errorf("the 71st key: %v", got)
	}
}

func testKnowledgeRewrite(t *testing.T, s, _ store.Store) {
	ctx := context.Background()
	e := KnowledgeAt("e1000000-0000-4000-8000-000000000001", "the backup job", 0)
	putEntry(t, s, e)
	putEntry(t, s, e) // a retried write
	e.Text = "the restore job"
	putEntry(t, s, e)
	all, err := s.ListKnowledge(ctx, store.KnowledgeQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Text != "the restore job" {
		t.Fatalf("after three writes of one entry: %v", entryIDs(all))
	}
	if es, _ := s.MatchKnowledge(ctx, []string{store.WordKey("backup")}, 10); len(es) != 0 {
		t.Errorf("the old text's word still matches")
	}
	if es, _ := s.MatchKnowledge(ctx, []string{store.WordKey("restore")}, 10); len(es) != 1 {
		t.Errorf("the new text's word does not match")
	}
}

func testKnowledgeIsolation(t *testing.T, a, b store.Store) {
	ctx := context.Background()
	e := KnowledgeAt("f1000000-0000-4000-8000-000000000001", "workspace a only", 0)
	putEntry(t, a, e)
	if _, err := b.GetKnowledge(ctx, string(e.ID)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other workspace reads it: %v", err)
	}
	if es, _ := b.ListKnowledge(ctx, store.KnowledgeQuery{All: true}); len(es) != 0 {
		t.Errorf("other workspace lists %v", entryIDs(es))
	}
	if es, _ := b.MatchKnowledge(ctx, []string{store.WordKey("workspace")}, 10); len(es) != 0 {
		t.Errorf("other workspace matches %v", entryIDs(es))
	}
}

func testKnowledgeNearest(t *testing.T, s, b store.Store) {
	ctx := context.Background()
	q := []float32{1, 0.1, 0, 0, 0, 0, 0, 0}
	near := KnowledgeAt("a1000000-0000-4000-8000-000000000001", "near", 0)
	near.Vector = []float32{0.9, 0.2, 0.1, 0, 0, 0, 0, 0}
	far := KnowledgeAt("a2000000-0000-4000-8000-000000000002", "far", 1)
	far.Vector = []float32{0, 0, 0, 1, 0.2, 0, 0, 0}
	retired := KnowledgeAt("a3000000-0000-4000-8000-000000000003", "retired", 2)
	retired.Vector = slices.Clone(q)
	at := retired.CreatedAt
	retired.RetiredAt = &at
	plain := KnowledgeAt("a4000000-0000-4000-8000-000000000004", "written without a vector", 3)
	rewritten := KnowledgeAt("a5000000-0000-4000-8000-000000000005", "rewritten without its vector", 4)
	rewritten.Vector = slices.Clone(q)
	for _, e := range []*record.Knowledge{near, far, retired, plain, rewritten} {
		putEntry(t, s, e)
	}
	// A write without a vector (embeddings off) leaves none: never a vector of older text.
	rewritten.Vector = nil
	putEntry(t, s, rewritten)
	other := KnowledgeAt("a6000000-0000-4000-8000-000000000006", "another workspace", 0)
	other.Vector = slices.Clone(q)
	putEntry(t, b, other)

	hits, err := s.NearestKnowledge(ctx, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, string(h.Entry.ID))
		if h.Entry.Text == "" || h.Entry.Workspace == "" {
			t.Errorf("hit %s read without its entry: %+v", h.Entry.ID, h.Entry)
		}
	}
	if want := []string{string(near.ID), string(far.ID)}; !slices.Equal(ids, want) {
		t.Fatalf("nearest = %v, want %v (nearest first; retired, vectorless and other workspaces' never)", ids, want)
	}
	if hits[0].Score < 0.95 || hits[1].Score > 0.2 {
		t.Errorf("cosines: near %.3f, far %.3f", hits[0].Score, hits[1].Score)
	}
	if hits, err := s.NearestKnowledge(ctx, q, 1); err != nil || len(hits) != 1 || hits[0].Entry.ID != near.ID {
		t.Errorf("limit 1: %v, %v", hits, err)
	}
}

// embedder is the Gemini fake's embedding (a hashed bag of words) without its server.
type embedder struct{ failed error }

func (e embedder) Embed(_ context.Context, texts []string, _ bool) ([][]float32, error) {
	if e.failed != nil {
		return nil, e.failed
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = geminitest.Embedding(t, 256)
	}
	return out, nil
}

// The notes of an alert by meaning, on the backend: an entry that shares no indicator and no
// type with the alert but says what it is about is given after the one matched by indicator;
// an unrelated one is not, a retired one never.
func testKnowledgeGivenByMeaning(t *testing.T, s, _ store.Store) {
	ctx := context.Background()
	byIP := KnowledgeAt("b1000000-0000-4000-8000-000000000001", "203.0.113.50 is our vulnerability scanner", 0)
	byIP.Indicators = []string{"203.0.113.50"}
	near := KnowledgeAt("b2000000-0000-4000-8000-000000000002",
		"An EC2 instance querying a domain name of a remote host known to hold credentials and stolen data captured by malware: our malware sandbox does this on purpose", 1)
	far := KnowledgeAt("b3000000-0000-4000-8000-000000000003", "The nightly backup job writes below etc every Sunday at two", 2)
	retired := KnowledgeAt("b4000000-0000-4000-8000-000000000004",
		"An EC2 instance querying a domain name of a remote host known to hold credentials and stolen data captured by malware: the old sandbox", 3)
	at := retired.CreatedAt.Add(time.Hour)
	retired.RetiredAt = &at
	for _, e := range []*record.Knowledge{byIP, near, far, retired} {
		e.Vector = geminitest.Embedding(e.Text, 256) // as the embedding layer writes it
		putEntry(t, s, e)
	}
	a := &record.Alert{ID: "alert-meaning", Title: "Drop Point domain name queried by EC2 instance", Data: []byte(`{"Type": "Trojan:EC2/DropPoint!DNS",
"Title": "Drop Point domain name queried by EC2 instance",
"Description": "EC2 instance is querying a domain name of a remote host that is known to hold credentials and other stolen data captured by malware.",
"Service": {"Action": {"NetworkConnectionAction": {"RemoteIpDetails": {"IpAddressV4": "203.0.113.50"}}}}, "Severity": 8}`)}
	now := func() time.Time { return byIP.CreatedAt.Add(24 * time.Hour) }
	warned := 0
	r := &knowledge.Retriever{Store: s, Now: now, Meaning: &knowledge.Meaning{Store: s, Embedder: embedder{}, Warn: func(error) { warned++ }}}
	got, err := r.ForAlert(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if ids, want := entryIDs(got), []string{string(byIP.ID), string(near.ID)}; !slices.Equal(ids, want) {
		t.Fatalf("given %v, want %v: the indicator's first, then the near one; never the far or the retired one", ids, want)
	}
	// Without meaning, the near entry is not given: it shares nothing with the alert but words.
	plain := &knowledge.Retriever{Store: s, Now: now}
	if got, err := plain.ForAlert(ctx, a); err != nil || !slices.Equal(entryIDs(got), []string{string(byIP.ID)}) {
		t.Errorf("without meaning: %v, %v", entryIDs(got), err)
	}
	// A query near in meaning finds the entry first.
	found, err := r.Search(ctx, "a host querying domains that hold stolen credentials from malware", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 || found[0].ID != near.ID || slices.ContainsFunc(found, func(e *record.Knowledge) bool { return e.ID == retired.ID }) {
		t.Errorf("search by meaning: %v", entryIDs(found))
	}
	// The embedding model failing costs the notes by meaning only, and is told once.
	down := &knowledge.Retriever{Store: s, Now: now, Meaning: &knowledge.Meaning{Store: s, Embedder: embedder{failed: errors.New("model unavailable")}, Warn: func(error) { warned++ }}}
	for range 2 {
		if got, err := down.ForAlert(ctx, a); err != nil || !slices.Equal(entryIDs(got), []string{string(byIP.ID)}) {
			t.Errorf("embedding down: %v, %v; want the entry matched by indicator", entryIDs(got), err)
		}
	}
	if warned != 1 {
		t.Errorf("warned %d times, want once", warned)
	}
}
