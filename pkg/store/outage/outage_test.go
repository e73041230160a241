package outage_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/store/outage"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestMarker(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		mark     time.Duration // 0: no mark
		edit     func(t *testing.T, path string)
		after    time.Duration // clock moved after marking
		clear    bool
		wantDown bool
	}{
		{name: "no mark"},
		{name: "fresh mark", mark: 30 * time.Second, after: 10 * time.Second, wantDown: true},
		{name: "expired", mark: 30 * time.Second, after: 30 * time.Second},
		{name: "cleared", mark: 30 * time.Second, clear: true},
		{name: "capped at MaxDown", mark: time.Hour, after: outage.MaxDown},
		{name: "clock went back", mark: 30 * time.Second, after: -time.Minute},
		{name: "corrupt", mark: 30 * time.Second, edit: func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "implausibly far", mark: 30 * time.Second, edit: func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(`{"since":"2026-11-23T10:00:00Z","until":"2027-01-01T00:00:00Z"}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &clock{t: start}
			m := outage.NewMarker(t.TempDir(), "cloud/p/(default)/b//ws", outage.WithClock(c.now))
			if tc.mark > 0 {
				if err := m.MarkDown(tc.mark); err != nil {
					t.Fatal(err)
				}
			}
			if tc.edit != nil {
				tc.edit(t, m.Path())
			}
			if tc.clear {
				if err := m.Clear(); err != nil {
					t.Fatal(err)
				}
			}
			c.t = start.Add(tc.after)
			until, down := m.Down()
			if down != tc.wantDown {
				t.Fatalf("Down() = %v, want %v", down, tc.wantDown)
			}
			if down && !until.Equal(start.Add(tc.mark)) {
				t.Fatalf("until %v, want %v", until, start.Add(tc.mark))
			}
		})
	}
}

// The mark is a private file of its backend: another backend's marker does not see it, and a
// second process (a second Marker on the same directory) does.
func TestMarkerScopeAndFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := outage.NewMarker(dir, "cloud/a")
	if err := a.MarkDown(time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, down := outage.NewMarker(dir, "cloud/b").Down(); down {
		t.Fatal("a mark of backend a stops backend b")
	}
	if _, down := outage.NewMarker(dir, "cloud/a").Down(); !down {
		t.Fatal("another process does not see the mark")
	}
	fi, err := os.Stat(a.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || filepath.Dir(a.Path()) != dir {
		t.Fatalf("mark file %s mode %v", a.Path(), fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d files in the data directory, want the mark only", len(entries))
	}
	if err := a.Clear(); err != nil {
		t.Fatal(err)
	}
	if err := a.Clear(); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
}

// Zero or negative durations clear, never mark.
func TestMarkDownNonPositive(t *testing.T) {
	t.Parallel()
	m := outage.NewMarker(t.TempDir(), "k")
	if err := m.MarkDown(time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := m.MarkDown(0); err != nil {
		t.Fatal(err)
	}
	if _, down := m.Down(); down {
		t.Fatal("MarkDown(0) left the backend down")
	}
}
