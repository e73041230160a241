package stage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/alert/stage"
	"github.com/alertchat/alertchat/pkg/record"
)

// In memory and spilled to disk, a stage gives back each input's distinct findings in order,
// says where a repeated one was first, and leaves no file behind.
func TestStage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		memory int
		spills bool
	}{
		{"memory", 1 << 20, false},
		{"spilled", 600, true}, // the third finding spills
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := stage.New(context.Background(), stage.Options{Memory: tc.memory, Dir: dir})
			when := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
			mk := func(id string) *record.Alert {
				return &record.Alert{ID: record.AlertID(id), Title: "t " + id, Severity: "high", Source: "falco", Time: when, Data: []byte(`{"id":"` + id + `"}`)}
			}
			adds := []struct {
				input int
				id    string
				dupOf string
			}{
				{0, "a", ""}, {0, "b", ""}, {0, "a", "line 1"}, {0, "c", ""}, {1, "a", ""}, {1, "a", "line 5"}, {0, "c", "line 4"},
			}
			for i, x := range adds {
				first, dup, err := s.Add(x.input, mk(x.id), fmt.Sprintf("line %d", i+1))
				if err != nil {
					t.Fatal(err)
				}
				if dup != (x.dupOf != "") || first != x.dupOf {
					t.Fatalf("add %d (%d %s): dup=%v first=%q, want %q", i, x.input, x.id, dup, first, x.dupOf)
				}
			}
			if s.Len() != 4 {
				t.Fatalf("%d staged, want 4", s.Len())
			}
			// Spilled or not, no file in the temporary directory holds the alerts while they are
			// staged: a run killed now (Ctrl-C) leaves nothing behind. The spill database is
			// open, its name already gone.
			if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
				t.Fatalf("a staging file a killed run would leave behind: %v (spilled %v)", files, tc.spills)
			}
			var got []string
			err := s.Each(func(input int, a *record.Alert) error {
				got = append(got, fmt.Sprintf("%d%s", input, a.ID))
				if want := mk(string(a.ID)); a.Title != want.Title || a.Severity != "high" || a.Source != "falco" || !a.Time.Equal(when) || string(a.Data) != string(want.Data) {
					t.Errorf("staged %+v, want %+v", a, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, []string{"0a", "0b", "0c", "1a"}) {
				t.Fatalf("order %v", got)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
