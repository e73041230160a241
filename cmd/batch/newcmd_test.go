package batch

import (
	"context"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
)

func TestNewCmdBatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		want  Options
		usage bool
	}{
		{"file", []string{"-f", "q.jsonl"}, Options{File: "q.jsonl", Concurrency: 4}, false},
		{"pace", []string{"-f", "-", "--concurrency", "8", "--rpm", "60", "--no-title-generation"}, Options{File: "-", Concurrency: 8, RPM: 60, NoTitles: true}, false},
		{"no file", nil, Options{}, true},
		{"bad concurrency", []string{"-f", "q.jsonl", "--concurrency", "lots"}, Options{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _ := cmdutil.TestIO("", false)
			var got *Options
			cmd := NewCmdBatch(&factory.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(_ context.Context, o *Options) error { got = o; return nil })
			cmd.OnUsageError = cmdutil.MarkUsage
			err := cmd.Run(context.Background(), append([]string{"batch"}, tc.args...))
			if tc.usage {
				if !cmdutil.IsUsage(err) {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil || got == nil || got.File != tc.want.File || got.Concurrency != tc.want.Concurrency || got.RPM != tc.want.RPM || got.NoTitles != tc.want.NoTitles {
				t.Fatalf("err %v, options %+v, want %+v", err, got, tc.want)
			}
		})
	}
}
