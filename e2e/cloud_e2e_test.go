package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/testenv"
)

// TestCloudStoreEndToEnd runs the binary on Firestore (emulator) and Cloud Storage
// (fake-gcs-server), and checks the contract's layout from the outside.
func TestCloudStoreEndToEnd(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t, titleAnswer("Cloud Title"))
	c.env = append(c.env, cloud.Env()...)
	c.env = append(c.env, "ALERTCHAT_PREFIX=team-a/", "ALERTCHAT_WORKSPACE=blue")

	alertID := c.addAlert("scc.json")
	if again := c.addAlert("scc.json"); again != alertID {
		t.Fatalf("re-adding gave %s, want %s", again, alertID)
	}
	got := c.askJSON("", "-a", alertID, "-q", "my mail is jane.doe@example.com, what now?")
	got2 := c.askJSON("", "--history", got.HistoryID[:10], "-q", "second")
	if got2.HistoryID != got.HistoryID || got.Title != "Cloud Title" {
		t.Fatalf("resume on cloud: %+v %+v", got, got2)
	}

	// The transcript object, at the contract's key, is a JSON array of genai.Content, redacted.
	ctx := context.Background()
	r, err := cloud.BucketHandle().Object("team-a/histories/" + got.HistoryID + ".json").NewReader(ctx)
	if err != nil {
		t.Fatalf("transcript object: %v", err)
	}
	data, _ := io.ReadAll(r)
	r.Close()
	var contents []*genai.Content
	if err := json.Unmarshal(data, &contents); err != nil || len(contents) != 4 {
		t.Fatalf("transcript object: %v, %d contents", err, len(contents))
	}
	if strings.Contains(string(data), "jane.doe@example.com") || !strings.Contains(string(data), "[REDACTED_EMAIL_") {
		t.Fatalf("stored transcript is not redacted: %s", data)
	}

	// The metadata document in `histories`.
	snap, err := cloud.Firestore.Collection("histories").Doc(got.HistoryID).Get(ctx)
	if err != nil {
		t.Fatalf("metadata document: %v", err)
	}
	meta := snap.Data()
	if meta["workspace"] != "blue" || meta["alert_id"] != alertID || meta["message_count"] != int64(4) || meta["title"] != "Cloud Title" {
		t.Fatalf("metadata: %v", meta)
	}
	n, err := cloud.Firestore.Collection("alerts").Where("workspace", "==", "blue").Documents(ctx).GetAll()
	if err != nil || len(n) != 1 {
		t.Fatalf("alerts collection: %v, %d documents", err, len(n))
	}

	// Listing, and another workspace sees nothing.
	var list []map[string]any
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("history list: %v %v", err, list)
	}
	other := *c
	other.env = append(append([]string{}, c.env...), "ALERTCHAT_WORKSPACE=red")
	if r := other.run("", "history", "show", got.HistoryID); r.code != 3 {
		t.Fatalf("another workspace: exit %d", r.code)
	}
	if out := other.mustRun("", "history", "list", "-o", "json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("another workspace lists %s", out)
	}
	c.mustRun("", "history", "rm", "-y", got.HistoryID)
	if _, err := cloud.Firestore.Collection("histories").Doc(got.HistoryID).Get(ctx); err == nil {
		t.Fatal("metadata survived rm")
	}
	if _, err := cloud.BucketHandle().Object("team-a/histories/" + got.HistoryID + ".json").Attrs(ctx); err == nil {
		t.Fatal("object survived rm")
	}
}
