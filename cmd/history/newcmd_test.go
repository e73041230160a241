package history

import (
	"context"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
)

func testFactory() *factory.Factory {
	ios, _, _ := cmdutil.TestIO("", false)
	return &factory.Factory{Factory: &cmdutil.Factory{IO: ios, Config: func() cmdutil.Config { return cmdutil.Config{} }}}
}

// parse runs cmd's flag and argument parsing on args; the command's work is replaced by runF.
func parse(t *testing.T, cmd *cli.Command, args []string) error {
	t.Helper()
	cmd.OnUsageError = cmdutil.MarkUsage
	return cmd.Run(context.Background(), append([]string{cmd.Name}, args...))
}

func wantParse(t *testing.T, err error, usage bool) {
	t.Helper()
	if usage != cmdutil.IsUsage(err) || !usage && err != nil {
		t.Fatalf("err = %v, want usage error: %v", err, usage)
	}
}

func TestNewCmdList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		want  ListOptions
		usage bool
	}{
		{"defaults", nil, ListOptions{Limit: 50, Output: "text"}, false},
		{"all flags", []string{"-a", "al-1", "--limit", "5", "-o", "json", "--cursor", "c1", "--header"}, ListOptions{AlertID: "al-1", Limit: 5, Output: "json", Cursor: "c1", Header: true}, false},
		{"argument", []string{"x"}, ListOptions{}, true},
		{"bad limit", []string{"--limit", "many"}, ListOptions{}, true},
		{"bad output", []string{"-o", "yaml"}, ListOptions{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *ListOptions
			err := parse(t, NewCmdList(testFactory(), func(_ context.Context, o *ListOptions) error { got = o; return nil }), tc.args)
			wantParse(t, err, tc.usage)
			if tc.usage {
				return
			}
			if got.AlertID != tc.want.AlertID || got.Limit != tc.want.Limit || got.Output != tc.want.Output || got.Cursor != tc.want.Cursor || got.Header != tc.want.Header {
				t.Fatalf("options %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestNewCmdShow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, id, output string
		args             []string
		usage            bool
	}{
		{"text", "abcdef12", "text", []string{"abcdef12"}, false},
		{"markdown", "abcdef12", "md", []string{"abcdef12", "-o", "md"}, false},
		{"no id", "", "", nil, true},
		{"two ids", "", "", []string{"a", "b"}, true},
		{"bad output", "", "", []string{"abcdef12", "-o", "html"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *ShowOptions
			err := parse(t, NewCmdShow(testFactory(), func(_ context.Context, o *ShowOptions) error { got = o; return nil }), tc.args)
			wantParse(t, err, tc.usage)
			if !tc.usage && (got.ID != tc.id || got.Output != tc.output) {
				t.Fatalf("options %+v", got)
			}
		})
	}
}

func TestNewCmdRm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		ids   int
		yes   bool
		usage bool
	}{
		{"one", []string{"abcdef12"}, 1, false, false},
		{"several, yes", []string{"-y", "abcdef12", "12345678"}, 2, true, false},
		{"none", nil, 0, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *RmOptions
			err := parse(t, NewCmdRm(testFactory(), func(_ context.Context, o *RmOptions) error { got = o; return nil }), tc.args)
			wantParse(t, err, tc.usage)
			if !tc.usage && (len(got.IDs) != tc.ids || got.Yes != tc.yes) {
				t.Fatalf("options %+v", got)
			}
		})
	}
}

func TestNewCmdRename(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, id, title string
		args            []string
		usage           bool
	}{
		{"id and title", "abcdef12", "New title", []string{"abcdef12", "New title"}, false},
		{"unquoted title of several words", "", "", []string{"abcdef12", "New", "title", "here"}, true},
		{"no title", "", "", []string{"abcdef12"}, true},
		{"nothing", "", "", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *RenameOptions
			err := parse(t, NewCmdRename(testFactory(), func(_ context.Context, o *RenameOptions) error { got = o; return nil }), tc.args)
			wantParse(t, err, tc.usage)
			if !tc.usage && (got.ID != tc.id || got.Title != tc.title) {
				t.Fatalf("options %+v", got)
			}
		})
	}
}

func TestNewCmdPrune(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		args        []string
		age         time.Duration
		dryRun, yes bool
		usage       bool
	}{
		{"30 days", []string{"--older-than", "30d"}, 30 * 24 * time.Hour, false, false, false},
		{"dry run, yes", []string{"--older-than", "12h", "--dry-run", "-y"}, 12 * time.Hour, true, true, false},
		{"no age", nil, 0, false, false, true},
		{"bad age", []string{"--older-than", "soon"}, 0, false, false, true},
		{"argument", []string{"--older-than", "1d", "x"}, 0, false, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *PruneOptions
			start := time.Now()
			err := parse(t, NewCmdPrune(testFactory(), func(_ context.Context, o *PruneOptions) error { got = o; return nil }), tc.args)
			wantParse(t, err, tc.usage)
			if tc.usage {
				return
			}
			if d := start.Sub(got.Before) - tc.age; d > time.Minute || d < -time.Minute || got.DryRun != tc.dryRun || got.Yes != tc.yes {
				t.Fatalf("options %+v (age %s)", got, start.Sub(got.Before))
			}
		})
	}
}

func TestNewCmdSyncFsckReindex(t *testing.T) {
	t.Parallel()
	f := testFactory()
	var sync *SyncOptions
	wantParse(t, parse(t, NewCmdSync(f, func(_ context.Context, o *SyncOptions) error { sync = o; return nil }), nil), false)
	wantParse(t, parse(t, NewCmdSync(f, func(context.Context, *SyncOptions) error { return nil }), []string{"x"}), true)
	if sync == nil {
		t.Fatal("sync did not run")
	}
	var fsck *FsckOptions
	wantParse(t, parse(t, NewCmdFsck(f, func(_ context.Context, o *FsckOptions) error { fsck = o; return nil }), []string{"--repair", "--grace", "2m", "-o", "json"}), false)
	if !fsck.Repair || fsck.Grace != 2*time.Minute || fsck.Output != "json" {
		t.Fatalf("fsck options %+v", fsck)
	}
	wantParse(t, parse(t, NewCmdFsck(f, func(context.Context, *FsckOptions) error { return nil }), []string{"-o", "yaml"}), true)
	var reindex *ReindexOptions
	wantParse(t, parse(t, NewCmdReindex(f, func(_ context.Context, o *ReindexOptions) error { reindex = o; return nil }), nil), false)
	wantParse(t, parse(t, NewCmdReindex(f, func(context.Context, *ReindexOptions) error { return nil }), []string{"x"}), true)
	if reindex == nil {
		t.Fatal("reindex did not run")
	}
}

func TestNewCmdReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, output, iocs string
		args               []string
		usage              bool
	}{
		{"markdown by default", "md", "", []string{"abcdef12"}, false},
		{"json", "json", "", []string{"abcdef12", "-o", "json"}, false},
		{"stix", "md", "stix", []string{"abcdef12", "--iocs", "stix"}, false},
		{"csv", "md", "csv", []string{"abcdef12", "--iocs", "csv"}, false},
		{"no id", "", "", nil, true},
		{"bad output", "", "", []string{"abcdef12", "-o", "text"}, true},
		{"bad iocs", "", "", []string{"abcdef12", "--iocs", "misp"}, true},
		{"both", "", "", []string{"abcdef12", "-o", "json", "--iocs", "csv"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *ReportOptions
			err := parse(t, NewCmdReport(testFactory(), func(_ context.Context, o *ReportOptions) error { got = o; return nil }), tc.args)
			wantParse(t, err, tc.usage)
			if tc.usage {
				return
			}
			if got.ID != "abcdef12" || got.Output != tc.output || got.IOCs != tc.iocs {
				t.Fatalf("options %+v", got)
			}
		})
	}
}
