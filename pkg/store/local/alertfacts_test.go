package local_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// A store made before alerts had a severity, source and time keeps its alerts, which list and
// search without them, and takes new alerts with them.
func TestAlertFactsMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, local.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE alerts (workspace TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL,
		data BLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (workspace, id));
		INSERT INTO alerts VALUES ('default', 'old-alert', 'Old', '{"ip":"198.51.100.9"}', 1700000000000000)`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old, err := s.GetAlert(ctx, "old-alert")
	if err != nil || old.Title != "Old" || old.Severity != "" || !old.Time.IsZero() {
		t.Fatalf("old alert: %+v %v", old, err)
	}
	if _, err := s.PutAlert(ctx, &record.Alert{ID: "new-alert", Title: "New", Severity: "high", Source: "scc", Data: []byte(`{"ip":"198.51.100.9","n":1}`)}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchAlerts(ctx, store.AlertSearchQuery{Text: "198.51.100.9"})
	if err != nil || len(hits) != 2 {
		t.Fatalf("search: %d hits, %v", len(hits), err)
	}
	hits, err = s.SearchAlerts(ctx, store.AlertSearchQuery{Text: "198.51.100.9", Severity: "high"})
	if err != nil || len(hits) != 1 || hits[0].Alert.ID != "new-alert" || hits[0].Alert.Source != "scc" {
		t.Fatalf("filtered search: %+v, %v", hits, err)
	}
}
