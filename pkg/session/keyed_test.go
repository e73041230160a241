package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/iterator"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/samechat"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/tokenkey"
)

// The conversation of the issue: two IPs and an e-mail address in the first question, and a
// second question that needs them.
const (
	ip1, ip2, mail = "203.0.113.7", "198.51.100.23", "evil@example.com"
	question1      = "Is " + ip1 + " malicious? It contacted " + mail + " from " + ip2
	question2      = "Which of the two IPs did I mention first?"
	answer1        = "Nothing links " + ip1 + " to known campaigns; " + mail + " is a throwaway address."
)

var tokenPattern = regexp.MustCompile(`\[REDACTED_(IP|EMAIL)_[a-z2-7]{10}\]`)

// keyedStore is a store with a workspace key, as both stores are.
type keyedStore interface {
	store.HistorySaver
	tokenkey.Source
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
}

// keyedBackend opens stores of one backend: open(t, place, workspace) where equal places
// share the records (a data directory, a cloud project and bucket); scan returns every byte the
// backend holds in place.
type keyedBackend struct {
	name  string
	place func(t *testing.T) string
	open  func(t *testing.T, place, workspace string) keyedStore
	scan  func(t *testing.T, place string) []byte
}

var cloudPlaces sync.Map // place -> *testenv.Cloud

var keyedBackends = []keyedBackend{
	{
		name:  "local",
		place: func(t *testing.T) string { return t.TempDir() },
		open: func(t *testing.T, dir, ws string) keyedStore {
			s, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
		scan: func(t *testing.T, dir string) []byte {
			var all []byte
			err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				all = append(all, b...)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return all
		},
	},
	{
		name: "cloud",
		place: func(t *testing.T) string {
			c := testenv.CloudEnv(t)
			cloudPlaces.Store(c.Project, c)
			return c.Project
		},
		open: func(t *testing.T, project, ws string) keyedStore {
			v, _ := cloudPlaces.Load(project)
			c := v.(*testenv.Cloud)
			// a client of its own: another process on the same cloud store
			fs := testenv.FirestoreClient(t, c.Project, "")
			s, err := cloud.New(cloud.Config{Firestore: fs, Bucket: testenv.StorageClient(t, c.StorageURL).Bucket(c.Bucket), Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		scan: func(t *testing.T, project string) []byte {
			v, _ := cloudPlaces.Load(project)
			c := v.(*testenv.Cloud)
			ctx := context.Background()
			var all []byte
			it := c.BucketHandle().Objects(ctx, nil)
			for {
				a, err := it.Next()
				if errors.Is(err, iterator.Done) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				r, err := c.BucketHandle().Object(a.Name).NewReader(ctx)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(r)
				_ = r.Close()
				all = append(all, b...)
			}
			cols := c.Firestore.Collections(ctx)
			for {
				col, err := cols.Next()
				if errors.Is(err, iterator.Done) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				docs, err := col.Documents(ctx).GetAll()
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range docs {
					b, _ := json.Marshal(d.Data())
					all = append(all, b...)
				}
			}
			return all
		},
	},
}

// keyedRedactor is what the command line builds for a workspace: every type, keyed tokens.
func keyedRedactor(t *testing.T, st tokenkey.Source) redacthist.Redactor {
	t.Helper()
	tk, err := tokenkey.Tokenizer(context.Background(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	return redacthist.Engine(redact.New(redact.AllTypes()...).WithTokens(tk))
}

type keyedEnv struct {
	srv   *geminitest.Server
	alert *record.Alert
}

func newKeyedEnv(t *testing.T, alertJSON string, handler func(*geminitest.Request) geminitest.Reply) *keyedEnv {
	t.Helper()
	if handler == nil {
		handler = func(r *geminitest.Request) geminitest.Reply {
			if r.Kind == geminitest.KindGenerateContent {
				return geminitest.Reply{Text: "unused"}
			}
			if strings.Contains(r.LastUserText(), "first?") {
				return geminitest.Reply{Text: "You mentioned " + ip1 + " first."}
			}
			return geminitest.Reply{Chunks: []string{"Nothing links " + ip1 + " to known campaigns; ", mail + " is a throwaway address."}}
		}
	}
	return &keyedEnv{
		srv:   geminitest.NewServer(t, geminitest.WithHandler(handler)),
		alert: &record.Alert{ID: "alert-k", Data: json.RawMessage(alertJSON)},
	}
}

func (e *keyedEnv) session(t *testing.T, st keyedStore, h *record.History, opts ...func(*session.Options)) *session.Session {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	o := session.Options{LLM: client.Models, Store: st, Redactor: keyedRedactor(t, st), Model: "gemini-test"}
	for _, f := range opts {
		f(&o)
	}
	s, err := session.New(o, e.alert, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *keyedEnv) lastStream(t *testing.T) *geminitest.Request {
	t.Helper()
	reqs := e.srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Kind == geminitest.KindStreamGenerateContent {
			return reqs[i]
		}
	}
	t.Fatal("no streamed request")
	return nil
}

func storedJSON(t *testing.T, st keyedStore, id record.HistoryID) (*record.History, string) {
	t.Helper()
	h, err := st.GetHistory(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(h.Contents)
	if err != nil {
		t.Fatal(err)
	}
	return h, string(b)
}

// tokensOf maps each distinct token of s to how often it occurs, in order of first occurrence.
func tokensOf(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range tokenPattern.FindAllString(s, -1) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// TestLiveContextAndKeyedTokens is the two-turn conversation: the second request carries what
// was typed and answered, the stored transcript carries keyed tokens (two IPs, two tokens; the
// same IP in question and answer, one token), the same value gives the same token in another
// history of the workspace and for another process on the same records, another workspace
// gives another token, and nothing typed is stored raw anywhere. Both stores.
func TestLiveContextAndKeyedTokens(t *testing.T) {
	t.Parallel()
	for _, b := range keyedBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			place := b.place(t)
			st := b.open(t, place, "team")
			e := newKeyedEnv(t, `{"Title":"Outbound SSH","AccountId":"783957204773"}`, nil)
			s := e.session(t, st, nil)
			if _, err := s.Send(ctx, question1, nil); err != nil {
				t.Fatal(err)
			}
			turn, err := s.Send(ctx, question2, nil)
			if err != nil || turn.SaveErr != nil {
				t.Fatal(err, turn.SaveErr)
			}

			// turn 2's request body: the live conversation, no placeholder
			cb, _ := json.Marshal(e.lastStream(t).Contents)
			body := string(cb)
			for _, want := range []string{question1, answer1, question2} {
				if !strings.Contains(body, mustJSONString(want)) {
					t.Fatalf("turn 2's request lacks %q:\n%s", want, body)
				}
			}
			if strings.Contains(body, "[REDACTED_IP") || strings.Contains(body, "[REDACTED_EMAIL") {
				t.Fatalf("turn 2's request carries placeholders:\n%s", body)
			}
			if !strings.Contains(e.lastStream(t).SystemText(), "equal tokens stand for equal values") {
				t.Fatal("the system instruction does not explain tokens")
			}
			if !strings.Contains(s.Contents()[0].Parts[0].Text, ip1) {
				t.Fatal("the live transcript lost its values")
			}

			// stored: tokens, two IPs two tokens, the IP of question and answer one token
			h, stored := storedJSON(t, st, s.History().ID)
			for _, raw := range []string{ip1, ip2, mail} {
				if strings.Contains(stored, raw) || strings.Contains(h.Title, raw) {
					t.Fatalf("stored transcript or title holds %q:\n%s\n%s", raw, h.Title, stored)
				}
			}
			q1 := h.Contents[0].Parts[0].Text
			toks := tokensOf(q1)
			if len(toks) != 3 || !strings.HasPrefix(toks[0], "[REDACTED_IP_") || !strings.HasPrefix(toks[1], "[REDACTED_EMAIL_") || !strings.HasPrefix(toks[2], "[REDACTED_IP_") {
				t.Fatalf("stored question: %q", q1)
			}
			ipTok, mailTok := toks[0], toks[1]
			if a1 := h.Contents[1].Parts[0].Text; !strings.Contains(a1, ipTok) || !strings.Contains(a1, mailTok) {
				t.Fatalf("the answer's tokens differ from the question's: %q vs %q", a1, q1)
			}

			// another history of the workspace, by another process on the same records
			st2 := b.open(t, place, "team")
			s2 := e.session(t, st2, nil)
			if _, err := s2.Send(ctx, "Did "+strings.ToUpper(mail)+" or ２０３．０．１１３．７ show up before?", nil); err != nil {
				t.Fatal(err)
			}
			_, stored2 := storedJSON(t, st2, s2.History().ID)
			if !strings.Contains(stored2, ipTok) || !strings.Contains(stored2, mailTok) {
				t.Fatalf("another history has other tokens for the same values (%s %s):\n%s", ipTok, mailTok, stored2)
			}

			// another workspace, another token
			st3 := b.open(t, place, "elsewhere")
			s3 := e.session(t, st3, nil)
			if _, err := s3.Send(ctx, question1, nil); err != nil {
				t.Fatal(err)
			}
			_, stored3 := storedJSON(t, st3, s3.History().ID)
			if strings.Contains(stored3, ipTok) || len(tokensOf(stored3)) == 0 {
				t.Fatalf("another workspace reuses the token %s:\n%s", ipTok, stored3)
			}

			// nothing typed is stored raw: every file, object and document
			all := b.scan(t, place)
			for _, raw := range []string{ip1, ip2, mail, "２０３．０．１１３．７", strings.ToUpper(mail)} {
				if bytes.Contains(all, []byte(raw)) {
					t.Fatalf("%q is stored raw", raw)
				}
			}
		})
	}
}

func mustJSONString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// TestAlertEvidenceKept: values the alert holds are written as they are; others are tokens.
func TestAlertEvidenceKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := keyedBackends[0].open(t, t.TempDir(), "team")
	e := newKeyedEnv(t, `{"Title":"Outbound SSH","RemoteIp":"`+ip2+`"}`, nil)
	s := e.session(t, st, nil)
	if _, err := s.Send(ctx, question1, nil); err != nil {
		t.Fatal(err)
	}
	h, stored := storedJSON(t, st, s.History().ID)
	if !strings.Contains(stored, ip2) || strings.Contains(stored, ip1) || strings.Contains(stored, mail) {
		t.Fatalf("stored: %s", stored)
	}
	ipTokens := strings.Count(stored+h.Title, "[REDACTED_IP_")
	if ipTokens == 0 || h.Redactions["IP"] != ipTokens {
		t.Fatalf("redaction counts %v (the alert's value is not a redaction)", h.Redactions)
	}
}

// TestResumeCarriesTokens: a resumed conversation sends the stored tokens, and the model is told
// what they are.
func TestResumeCarriesTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := keyedBackends[0].open(t, t.TempDir(), "team")
	e := newKeyedEnv(t, `{"Title":"Outbound SSH"}`, nil)
	s := e.session(t, st, nil)
	if _, err := s.Send(ctx, question1, nil); err != nil {
		t.Fatal(err)
	}
	h, stored := storedJSON(t, st, s.History().ID)
	resumed := e.session(t, st, h)
	if _, err := resumed.Send(ctx, question2, nil); err != nil {
		t.Fatal(err)
	}
	req := e.lastStream(t)
	first := req.Contents[0].Parts[0].Text
	if first != h.Contents[0].Parts[0].Text || len(tokensOf(first)) != 3 || strings.Contains(string(req.Body), ip1) {
		t.Fatalf("resumed request opens with %q", first)
	}
	if !strings.Contains(req.SystemText(), session.TokenNote) {
		t.Fatal("the system instruction does not explain tokens")
	}
	// the stored turns are kept as they were; the new ones follow
	h2, stored2 := storedJSON(t, st, resumed.History().ID)
	if len(h2.Contents) != 4 || !strings.HasPrefix(stored2, strings.TrimSuffix(stored, "]")) {
		t.Fatalf("resumed history: %d contents", len(h2.Contents))
	}
}

// TestCompactionLiveAndStored: the summariser sees the live values; the stored summary is
// redacted with tokens, while the live one (sent in later requests) keeps the values.
func TestCompactionLiveAndStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := keyedBackends[0].open(t, t.TempDir(), "team")
	var summaryReq *geminitest.Request
	var mu sync.Mutex
	e := newKeyedEnv(t, `{"Title":"Outbound SSH"}`, func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			mu.Lock()
			summaryReq = r
			mu.Unlock()
			return geminitest.Reply{Text: "IOCs: " + ip1 + ", " + ip2 + ", " + mail + ". Findings: none yet."}
		}
		return geminitest.Reply{Text: "Nothing links " + ip1 + " to known campaigns."}
	})
	s := e.session(t, st, nil)
	for _, q := range []string{question1, question2, "And the e-mail?"} {
		if _, err := s.Send(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	sr := summaryReq
	mu.Unlock()
	if sr == nil || !strings.Contains(sr.LastUserText(), question1) {
		t.Fatal("the summariser did not see the live contents")
	}
	h, err := st.GetHistory(ctx, s.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	if h.Summary == nil || strings.Contains(h.Summary.Text, ip1) || len(tokensOf(h.Summary.Text)) != 3 {
		t.Fatalf("stored summary: %+v", h.Summary)
	}
	if _, err := s.Send(ctx, "What next?", nil); err != nil {
		t.Fatal(err)
	}
	if first := e.lastStream(t).Contents[0].Parts[0].Text; !strings.Contains(first, "IOCs: "+ip1) {
		t.Fatalf("the next request does not carry the live summary: %q", first)
	}
	// the stored summary's tokens are the transcript's
	_, stored := storedJSON(t, st, s.History().ID)
	for _, tok := range tokensOf(h.Summary.Text) {
		if !strings.Contains(stored, tok) {
			t.Fatalf("summary token %s is not the transcript's", tok)
		}
	}
}

// TestPartialAnswerMarked: an answer cut short is stored and re-sent with the marker.
func TestPartialAnswerMarked(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"broken stream", "cancelled"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := keyedBackends[0].open(t, t.TempDir(), "team")
			e := newKeyedEnv(t, `{"Title":"Outbound SSH"}`, func(r *geminitest.Request) geminitest.Reply {
				return geminitest.Reply{Text: "full answer"}
			})
			s := e.session(t, st, nil)
			var turn *session.Turn
			var err error
			if how == "broken stream" {
				e.srv.Enqueue(geminitest.Reply{Chunks: []string{"The host ", "talked to"}, Status: 500, ErrorMessage: "cut"})
				turn, err = s.Send(ctx, question1, nil)
			} else {
				e.srv.Enqueue(geminitest.Reply{Chunks: []string{"The host ", "talked to", " more", " more"}, ChunkDelay: 100 * time.Millisecond})
				cctx, cancel := context.WithCancel(ctx)
				turn, err = s.Send(cctx, question1, func(string) { cancel() })
			}
			if err == nil || turn == nil || !turn.Partial || turn.SaveErr != nil {
				t.Fatalf("partial turn: %v %+v", err, turn)
			}
			if strings.Contains(turn.Answer, session.PartialMarker) {
				t.Fatal("the marker is part of the shown answer")
			}
			h, _ := storedJSON(t, st, s.History().ID)
			parts := h.Contents[1].Parts
			if last := parts[len(parts)-1].Text; !strings.HasSuffix(last, session.PartialMarker) {
				t.Fatalf("stored reply not marked: %q", last)
			}
			if _, err := s.Send(ctx, "go on", nil); err != nil {
				t.Fatal(err)
			}
			req := e.lastStream(t)
			rp := req.Contents[1].Parts
			if !strings.HasSuffix(rp[len(rp)-1].Text, session.PartialMarker) {
				t.Fatalf("re-sent reply not marked: %+v", rp)
			}
		})
	}
}

// failingStore fails every save, so that turns go to the spool.
type failingStore struct{ keyedStore }

func (failingStore) SaveHistory(context.Context, *record.History) error {
	return errors.New("store unavailable")
}

type capturingSpool struct{ got []byte }

func (c *capturingSpool) Put(key string, h *record.History) (string, error) {
	b, _ := json.Marshal(h)
	cb, _ := store.EncodeTranscript(h.Contents)
	c.got = append(append(c.got, b...), cb...)
	return "k", nil
}

func (c *capturingSpool) Remove(string) error { return nil }

// TestSpoolReceivesRedacted: what the spool is given (the history as stored) is redacted.
func TestSpoolReceivesRedacted(t *testing.T) {
	t.Parallel()
	st := keyedBackends[0].open(t, t.TempDir(), "team")
	e := newKeyedEnv(t, `{"Title":"Outbound SSH"}`, nil)
	sp := &capturingSpool{}
	s := e.session(t, failingStore{st}, nil, func(o *session.Options) {
		o.Spool = sp
		o.Redactor = keyedRedactor(t, st)
	})
	turn, err := s.Send(context.Background(), question1, nil)
	if err != nil || !turn.Spooled {
		t.Fatalf("%v %+v", err, turn)
	}
	for _, raw := range []string{ip1, ip2, mail} {
		if bytes.Contains(sp.got, []byte(raw)) {
			t.Fatalf("the spool received %q", raw)
		}
	}
	if len(tokensOf(string(sp.got))) == 0 {
		t.Fatal("the spool received no tokens")
	}
}

// TestJudgeCacheKeyedQuestion: with the workspace's redactor, the judge recognises a repeated
// question by its stored (tokenised) form, and its cache file holds nothing typed.
func TestJudgeCacheKeyedQuestion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st := keyedBackends[0].open(t, dir, "team")
	e := newKeyedEnv(t, `{"Title":"Outbound SSH"}`, nil)
	s := e.session(t, st, nil)
	if _, err := s.Send(ctx, question1, nil); err != nil {
		t.Fatal(err)
	}
	before := len(e.srv.Requests())
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	cachePath := filepath.Join(dir, "judge-cache.json")
	j := &samechat.Judge{LLM: client.Models, Model: "m", Cache: samechat.NewJudgeCache(cachePath, 0), Redactor: keyedRedactor(t, st)}
	got, err := j.Match(ctx, question1, []*record.History{s.History()}, nil)
	if err != nil || got == nil || got.ID != s.History().ID {
		t.Fatalf("Match = %v, %v", got, err)
	}
	if len(e.srv.Requests()) != before {
		t.Fatal("the repeated question went to the model")
	}
	data, err := os.ReadFile(cachePath)
	if err != nil || len(data) == 0 {
		t.Fatalf("cache file: %v", err)
	}
	for _, raw := range []string{ip1, ip2, mail} {
		if bytes.Contains(data, []byte(raw)) {
			t.Fatalf("the judge cache holds %q", raw)
		}
	}
}

// TestFallbackTitleRedactedBeforeShortening: a value where the first question is cut for the
// title leaves no fragment in the stored title.
func TestFallbackTitleRedactedBeforeShortening(t *testing.T) {
	t.Parallel()
	st := keyedBackends[0].open(t, t.TempDir(), "team")
	e := newKeyedEnv(t, `{"Title":"Outbound SSH"}`, nil)
	s := e.session(t, st, nil)
	key := "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"
	q := strings.Repeat("x", 25) + "," + key + " is it leaked?"
	if _, err := s.Send(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
	h, _ := storedJSON(t, st, s.History().ID)
	if strings.Contains(h.Title, "ghp_1a2B") {
		t.Fatalf("title holds a fragment of the token: %q", h.Title)
	}
}

// TestGeneratedTitleRedactedBeforeShortening: a generated title is redacted before it is cleaned
// and cut to length, so a value across the cut leaves no raw fragment.
func TestGeneratedTitleRedactedBeforeShortening(t *testing.T) {
	t.Parallel()
	st := keyedBackends[0].open(t, t.TempDir(), "team")
	title := strings.Repeat("y", 50) + " jane.doe@example.com asked"
	e := newKeyedEnv(t, `{"Title":"Outbound SSH"}`, func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: title}
		}
		return geminitest.Reply{Text: "answer"}
	})
	s := e.session(t, st, nil, func(o *session.Options) { o.Titles = true })
	if _, err := s.Send(context.Background(), "who is it?", nil); err != nil {
		t.Fatal(err)
	}
	h, _ := storedJSON(t, st, s.History().ID)
	if strings.Contains(h.Title, "jane") || h.TitleSource != record.TitleGenerated || !strings.HasPrefix(h.Title, strings.Repeat("y", 50)) {
		t.Fatalf("stored title %q (%s)", h.Title, h.TitleSource)
	}
}
