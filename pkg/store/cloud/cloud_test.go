package cloud_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
)

// harness is one fresh backend: a Firestore project on the emulator and a fake-gcs-server.
type harness struct {
	*storetest.Harness
	fs     *firestore.Client
	bucket *storage.BucketHandle
}

func newHarness(t testing.TB, prefix string) *harness {
	t.Helper()
	fs := testenv.Firestore(t)
	_, sc := testenv.GCS(t)
	return harnessOn(fs, sc.Bucket(testenv.Bucket), prefix)
}

func harnessOn(fs *firestore.Client, bucket *storage.BucketHandle, prefix string) *harness {
	h := &harness{fs: fs, bucket: bucket}
	h.Harness = &storetest.Harness{
		Prefix: prefix,
		Open: func(t testing.TB, workspace string) store.Store {
			return openStore(t, fs, bucket, prefix, workspace)
		},
		ReadObject: func(t testing.TB, key string) ([]byte, bool) {
			t.Helper()
			r, err := bucket.Object(key).NewReader(context.Background())
			if errors.Is(err, storage.ErrObjectNotExist) {
				return nil, false
			}
			if err != nil {
				t.Fatalf("read object %s: %v", key, err)
			}
			defer r.Close()
			data, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("read object %s: %v", key, err)
			}
			return data, true
		},
		WriteObject: func(t testing.TB, key string, data []byte) {
			t.Helper()
			w := bucket.Object(key).NewWriter(context.Background())
			w.ContentType = "application/json"
			if _, err := w.Write(data); err != nil {
				t.Fatalf("write object %s: %v", key, err)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("write object %s: %v", key, err)
			}
		},
	}
	return h
}

func openStore(t testing.TB, fs *firestore.Client, bucket *storage.BucketHandle, prefix, workspace string) *cloud.Store {
	t.Helper()
	s, err := cloud.New(cloud.Config{Firestore: fs, Bucket: bucket, Prefix: prefix, Workspace: workspace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB) *storetest.Harness { return newHarness(t, "alertchat/").Harness })
}

func TestConformanceNoPrefix(t *testing.T) {
	storetest.Run(t, func(t testing.TB) *storetest.Harness { return newHarness(t, "").Harness })
}

func TestNewValidates(t *testing.T) {
	fs := testenv.Firestore(t)
	_, sc := testenv.GCS(t)
	for _, ws := range []string{"", "a/b", "-x", "a:b", strings.Repeat("w", 65)} {
		if _, err := cloud.New(cloud.Config{Firestore: fs, Bucket: sc.Bucket(testenv.Bucket), Workspace: ws}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("workspace %q: %v, want ErrInvalid", ws, err)
		}
	}
	if _, err := cloud.New(cloud.Config{Bucket: sc.Bucket(testenv.Bucket), Workspace: "w"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("no firestore client: %v", err)
	}
	if _, err := cloud.Open(context.Background(), cloud.Options{Bucket: "b", Workspace: "w"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("open without project: %v", err)
	}
}

// A named database is a separate namespace: what one holds, the other does not see.
func TestNamedDatabase(t *testing.T) {
	ctx := context.Background()
	project := testenv.NewProjectID()
	named := testenv.FirestoreClient(t, project, "alertchat-db")
	def := testenv.FirestoreClient(t, project, "")
	bucket, url, handle := testenv.GCSBucket(t)

	s, err := cloud.Open(ctx, cloud.Options{
		Project: project, Database: "alertchat-db", Bucket: bucket, Prefix: "p/", Workspace: "ws",
		StorageOptions: []option.ClientOption{option.WithEndpoint(url + "/storage/v1/"), option.WithoutAuthentication()},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutAlert(ctx, &record.Alert{ID: "alert-1", Data: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if snap, err := named.Collection("histories").Doc(string(h.ID)).Get(ctx); err != nil || snap.Data()["workspace"] != "ws" {
		t.Fatalf("history not in the named database: %v", err)
	}
	if _, err := def.Collection("histories").Doc(string(h.ID)).Get(ctx); err == nil {
		t.Fatal("history written to the (default) database")
	}
	got, err := openStore(t, named, handle, "p/", "ws").GetHistory(ctx, h.ID)
	if err != nil || len(got.Contents) != len(h.Contents) {
		t.Fatalf("read back from the named database: %v", err)
	}
	if _, err := openStore(t, def, handle, "p/", "ws").GetHistoryMeta(ctx, h.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("(default) database sees the history: %v", err)
	}
}

// The object and the document have the documented shape.
func TestStoredShape(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, "alertchat/")
	s := openStore(t, h.fs, h.bucket, h.Prefix, "ws-a")
	hist := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	hist.Redactions = map[string]int{"EMAIL": 1}
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatal(err)
	}
	key := store.ObjectKey("alertchat/", hist.ID)
	attrs, err := h.bucket.Object(key).Attrs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if attrs.ContentType != "application/json" {
		t.Errorf("content type %q", attrs.ContentType)
	}
	if attrs.Generation != hist.ContentVersion || hist.ContentVersion == 0 {
		t.Errorf("ContentVersion %d, object generation %d", hist.ContentVersion, attrs.Generation)
	}
	if attrs.Metadata["history_id"] != string(hist.ID) || attrs.Metadata["workspace"] != "ws-a" {
		t.Errorf("object metadata %v", attrs.Metadata)
	}
	want, _ := store.EncodeTranscript(hist.Contents)
	got, _ := h.ReadObject(t, key)
	if !bytes.Equal(got, want) {
		t.Error("object bytes differ from store.EncodeTranscript")
	}

	snap, err := h.fs.Collection("histories").Doc(string(hist.ID)).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data := snap.Data()
	var fields []string
	for k := range data {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	// body_terms, indexed_count, search_v and terms are the search index (search.go); verdict is
	// there while open, for --open (questions, analysts and resolution only once there are any).
	wantFields := []string{"alert_id", "body_terms", "created_at", "fork_point", "id", "indexed_count", "message_count", "object_generation", "parent_id",
		"redacted_count", "redactions", "revision", "search_v", "terms", "title", "title_source", "tool_approvals", "tool_calls", "updated_at", "usage", "verdict", "workspace"}
	if !slices.Equal(fields, wantFields) {
		t.Errorf("document fields %v, want %v", fields, wantFields)
	}
	if data["object_generation"] != hist.ContentVersion || data["revision"] != int64(1) || data["workspace"] != "ws-a" {
		t.Errorf("document %v", data)
	}
	if u, ok := data["usage"].(map[string]any); !ok || len(u) != 3 || u["thought_tokens"] == nil {
		t.Errorf("usage %v: want input_tokens, output_tokens, thought_tokens", data["usage"])
	}

	// The second save bumps revision and generation together.
	prev := hist.ContentVersion
	hist.Contents = append(hist.Contents, genai.NewContentFromText("more", genai.RoleUser))
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatal(err)
	}
	snap, err = h.fs.Collection("histories").Doc(string(hist.ID)).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Data()["revision"] != int64(2) || snap.Data()["object_generation"] != hist.ContentVersion || hist.ContentVersion == prev {
		t.Errorf("after update: %v, ContentVersion %d (was %d)", snap.Data(), hist.ContentVersion, prev)
	}

	// Who asked and the conclusion: questions, the analysts array --analyst queries, the
	// verdict --verdict queries, the resolution map; a reopen removes the map and empties the
	// verdict.
	hist.Questions = []record.Question{{Content: 0, Analyst: "alice", At: store.Now()}, {Content: 4, Analyst: "bob", At: store.Now()}}
	hist.Resolution = &record.Resolution{Verdict: record.VerdictBenign, Note: "n", ResolvedBy: "carol", ResolvedAt: store.Now()}
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatal(err)
	}
	snap, err = h.fs.Collection("histories").Doc(string(hist.ID)).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := snap.Data()
	res, _ := d["resolution"].(map[string]any)
	qs, _ := d["questions"].([]any)
	if d["verdict"] != "benign" || !reflect.DeepEqual(d["analysts"], []any{"alice", "bob"}) || len(qs) != 2 ||
		res["verdict"] != "benign" || res["resolved_by"] != "carol" || res["note"] != "n" || res["resolved_at"] == nil {
		t.Errorf("resolved document %v", d)
	}
	hist.Resolution = nil
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatal(err)
	}
	if snap, err = h.fs.Collection("histories").Doc(string(hist.ID)).Get(ctx); err != nil {
		t.Fatal(err)
	}
	if _, has := snap.Data()["resolution"]; has || snap.Data()["verdict"] != "" {
		t.Errorf("reopened document %v", snap.Data())
	}

	// Alerts: the document ID is scoped to the workspace, data is the string given.
	raw := `{"b": 2,  "a": [1]}`
	if _, err := s.PutAlert(ctx, &record.Alert{ID: "al/ert%1", Title: "x", Data: json.RawMessage(raw)}); err != nil {
		t.Fatal(err)
	}
	asnap, err := h.fs.Collection("alerts").Doc("ws-a:al%2Fert%251").Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if asnap.Data()["data"] != raw || asnap.Data()["id"] != "al/ert%1" || asnap.Data()["workspace"] != "ws-a" {
		t.Errorf("alert document %v", asnap.Data())
	}
	a, err := s.GetAlert(ctx, "al/ert%1")
	if err != nil || string(a.Data) != raw {
		t.Fatalf("alert with '/' and '%%' in its ID: %v %+v", err, a)
	}
	page, err := s.ListAlerts(ctx, store.AlertQuery{Limit: 1})
	if err != nil || len(page.Alerts) != 1 || page.Alerts[0].Data != nil {
		t.Fatalf("list alerts: %v %+v", err, page)
	}
}

// A document whose object was removed by an outside hand: a clear error naming the history,
// not "not found"; the metadata is still readable and the history can be deleted.
func TestMissingObject(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, "x/")
	s := openStore(t, h.fs, h.bucket, h.Prefix, "ws")
	hist := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatal(err)
	}
	if err := h.bucket.Object(store.ObjectKey("x/", hist.ID)).Delete(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := s.GetHistory(ctx, hist.ID)
	if err == nil || errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), string(hist.ID)) ||
		!strings.Contains(err.Error(), "missing") {
		t.Fatalf("GetHistory of a history without object: %v", err)
	}
	if _, err := s.GetHistoryMeta(ctx, hist.ID); err != nil {
		t.Fatal(err)
	}
	// A save cannot resurrect content behind the metadata's back: the object it loaded is gone.
	hist.Contents = append(hist.Contents, genai.NewContentFromText("more", genai.RoleUser))
	if err := s.SaveHistory(ctx, hist); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("save over a missing object: %v, want ErrConflict", err)
	}
	if err := s.DeleteHistory(ctx, hist.ID); err != nil {
		t.Fatalf("delete of a history without object: %v", err)
	}
	if _, err := s.GetHistoryMeta(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

// The prefix is used exactly as given, and nothing is written outside it.
func TestPrefix(t *testing.T) {
	ctx := context.Background()
	fs := testenv.Firestore(t)
	_, sc := testenv.GCS(t)
	bucket := sc.Bucket(testenv.Bucket)
	for _, prefix := range []string{"", "alertchat/", "a/b/c/", "flat-"} {
		s := openStore(t, fs, bucket, prefix, "ws")
		hist := storetest.NewHistory("alert-1", nil)
		if err := s.SaveHistory(ctx, hist); err != nil {
			t.Fatal(err)
		}
		want := prefix + "histories/" + string(hist.ID) + ".json"
		if _, err := bucket.Object(want).Attrs(ctx); err != nil {
			t.Fatalf("prefix %q: object %s: %v", prefix, want, err)
		}
		if got, err := s.GetHistory(ctx, hist.ID); err != nil || got.Contents == nil || len(got.Contents) != 0 {
			t.Fatalf("prefix %q: read back %v %+v", prefix, err, got)
		}
		if err := s.DeleteHistory(ctx, hist.ID); err != nil {
			t.Fatal(err)
		}
	}
	it := bucket.Objects(ctx, nil)
	for {
		o, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Errorf("object %s left behind", o.Name)
	}
}

// When the metadata write fails after the object write, the same caller can retry the save.
func TestRetryAfterMetadataFailure(t *testing.T) {
	ctx := context.Background()
	project := testenv.NewProjectID()
	fs := testenv.FirestoreClient(t, project, "")
	broken := testenv.FirestoreClient(t, project, "")
	if err := broken.Close(); err != nil {
		t.Fatal(err)
	}
	_, sc := testenv.GCS(t)
	bucket := sc.Bucket(testenv.Bucket)

	hist := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	bad := openStore(t, broken, bucket, "", "ws")
	if err := bad.SaveHistory(ctx, hist); err == nil || errors.Is(err, store.ErrConflict) {
		t.Fatalf("save on a closed firestore client: %v", err)
	}
	if hist.Revision != 0 || hist.ContentVersion == 0 {
		t.Fatalf("after failed metadata write: revision %d, content version %d", hist.Revision, hist.ContentVersion)
	}
	good := openStore(t, fs, bucket, "", "ws")
	if _, err := good.GetHistoryMeta(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("metadata written despite the failure: %v", err)
	}
	// Another creator of the same ID loses; the original caller's retry wins.
	other := hist.Meta()
	other.ContentVersion = 0
	if err := good.SaveHistory(ctx, other); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("other create: %v, want ErrConflict", err)
	}
	if err := good.SaveHistory(ctx, hist); err != nil {
		t.Fatalf("retry: %v", err)
	}
	got, err := good.GetHistory(ctx, hist.ID)
	if err != nil || got.Revision != 1 || len(got.Contents) != len(hist.Contents) || got.ContentVersion != hist.ContentVersion {
		t.Fatalf("after retry: %v %+v", err, got)
	}
}

func TestBadCursorID(t *testing.T) {
	h := newHarness(t, "")
	s := openStore(t, h.fs, h.bucket, "", "ws")
	for _, c := range []string{store.EncodeCursor(store.Now(), "a/b"), store.EncodeCursor(store.Now(), "not-a-uuid")} {
		if _, err := s.ListHistories(context.Background(), store.HistoryQuery{Cursor: c}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("cursor %q: %v, want ErrInvalid", c, err)
		}
	}
	if ids, err := s.FindHistories(context.Background(), "zz/..", 5); err != nil || len(ids) != 0 {
		t.Errorf("find with an impossible prefix: %v %v", ids, err)
	}
}

// Open in another process finds both emulators through the SDKs' environment variables, as
// the CLI does under end-to-end tests: testenv.CloudEnv's Env is all it needs.
func TestOpenFromEnvironment(t *testing.T) {
	if os.Getenv("ALERTCHAT_TEST_SUBPROCESS") == "1" {
		openFromEnvironment(t)
		return
	}
	c := testenv.CloudEnv(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenFromEnvironment$", "-test.v")
	cmd.Env = append(os.Environ(), c.Env()...)
	cmd.Env = append(cmd.Env, "ALERTCHAT_TEST_SUBPROCESS=1", "ALERTCHAT_PREFIX=sub/")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("subprocess: %v\n%s", err, out)
	}
	_, idLine, ok := strings.Cut(string(out), "saved history ")
	if !ok {
		t.Fatalf("subprocess output:\n%s", out)
	}
	id := record.HistoryID(strings.Fields(idLine)[0])
	s := openStore(t, c.Firestore, c.BucketHandle(), "sub/", "ws")
	got, err := s.GetHistory(context.Background(), id)
	if err != nil || len(got.Contents) != len(storetest.EveryPartKind()) {
		t.Fatalf("history written by the subprocess: %v", err)
	}
}

func openFromEnvironment(t *testing.T) {
	ctx := context.Background()
	s, err := cloud.Open(ctx, cloud.Options{
		Project: os.Getenv("ALERTCHAT_FIRESTORE_PROJECT"), Database: os.Getenv("ALERTCHAT_FIRESTORE_DATABASE"),
		Bucket: os.Getenv("ALERTCHAT_BUCKET"), Prefix: os.Getenv("ALERTCHAT_PREFIX"), Workspace: "ws",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetHistory(ctx, h.ID); err != nil || len(got.Contents) != len(h.Contents) {
		t.Fatalf("read back through the JSON API: %v", err)
	}
	fmt.Printf("saved history %s\n", h.ID)
}

// A new history made from a copy of a saved one (a child history) carries the parent's
// ContentVersion; its create must not mistake it for a retry.
func TestCreateFromCopy(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, "")
	s := openStore(t, h.fs, h.bucket, "", "ws")
	parent := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, parent); err != nil {
		t.Fatal(err)
	}
	child := *parent
	child.ID, child.ParentID, child.Revision = store.NewHistoryID(), parent.ID, 0
	if err := s.SaveHistory(ctx, &child); err != nil {
		t.Fatalf("create of a copied history: %v", err)
	}
	if child.Revision != 1 || child.ContentVersion == parent.ContentVersion {
		t.Fatalf("child: revision %d, content version %d (parent %d)", child.Revision, child.ContentVersion, parent.ContentVersion)
	}
}
