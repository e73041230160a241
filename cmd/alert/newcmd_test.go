package alert

import (
	"context"
	"slices"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
)

func testFactory() *factory.Factory {
	ios, _, _ := cmdutil.TestIO("", false)
	return &factory.Factory{Factory: &cmdutil.Factory{IO: ios}}
}

func parse(cmd *cli.Command, args []string) error {
	cmd.OnUsageError = cmdutil.MarkUsage
	return cmd.Run(context.Background(), append([]string{cmd.Name}, args...))
}

func TestNewCmdAdd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		files []string
		usage bool
	}{
		{"one file", []string{"-f", "a.json"}, []string{"a.json"}, false},
		{"stdin", []string{"-f", "-"}, []string{"-"}, false},
		{"a glob's files", []string{"-f", "a.json", "b.json", "c.json"}, []string{"a.json", "b.json", "c.json"}, false},
		{"no file", nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *AddOptions
			err := parse(NewCmdAdd(testFactory(), func(_ context.Context, o *AddOptions) error { got = o; return nil }), tc.args)
			if tc.usage != cmdutil.IsUsage(err) || !tc.usage && (err != nil || !slices.Equal(got.Files, tc.files)) {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}

func TestNewCmdListAndShow(t *testing.T) {
	t.Parallel()
	var list *ListOptions
	if err := parse(NewCmdList(testFactory(), func(_ context.Context, o *ListOptions) error { list = o; return nil }), []string{"-o", "json", "--limit", "3"}); err != nil || list.Output != "json" || list.Limit != 3 {
		t.Fatalf("list: err %v, options %+v", err, list)
	}
	for _, args := range [][]string{{"x"}, {"-o", "yaml"}} {
		if err := parse(NewCmdList(testFactory(), func(context.Context, *ListOptions) error { return nil }), args); !cmdutil.IsUsage(err) {
			t.Fatalf("list %v: err %v, want a usage error", args, err)
		}
	}
	var show *ShowOptions
	if err := parse(NewCmdShow(testFactory(), func(_ context.Context, o *ShowOptions) error { show = o; return nil }), []string{"abcdef12", "-o", "json"}); err != nil || show.ID != "abcdef12" || show.Output != "json" {
		t.Fatalf("show: err %v, options %+v", err, show)
	}
	for _, args := range [][]string{nil, {"a", "b"}} {
		if err := parse(NewCmdShow(testFactory(), func(context.Context, *ShowOptions) error { return nil }), args); !cmdutil.IsUsage(err) {
			t.Fatalf("show %v: err %v, want a usage error", args, err)
		}
	}
}

func TestNewCmdSearch(t *testing.T) {
	t.Parallel()
	var got *SearchOptions
	if err := parse(NewCmdSearch(testFactory(), func(_ context.Context, o *SearchOptions) error { got = o; return nil }), []string{"198.51.100.23", "3322.org", "--limit", "5", "-o", "json"}); err != nil ||
		got.Query != "198.51.100.23 3322.org" || got.Limit != 5 || got.Output != "json" {
		t.Fatalf("err %v, options %+v", err, got)
	}
	for _, args := range [][]string{nil, {"x", "--limit", "0"}, {"x", "-o", "yaml"}} {
		if err := parse(NewCmdSearch(testFactory(), func(context.Context, *SearchOptions) error { return nil }), args); !cmdutil.IsUsage(err) {
			t.Fatalf("search %v: err %v, want a usage error", args, err)
		}
	}
}
