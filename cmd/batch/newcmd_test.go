package batch

import (
	"context"
	"testing"
	"time"

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

func TestNewCmdBatchRemote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		want  cmdutil.RemoteOptions
		check bool // RemoteOptions.Check refuses it
	}{
		{"remote", []string{"-f", "q.jsonl", "--remote"}, cmdutil.RemoteOptions{Enabled: true, PollInterval: 30 * time.Second}, false},
		{"no wait", []string{"-f", "q.jsonl", "--remote", "--no-wait", "--resubmit", "--poll-interval", "5s"}, cmdutil.RemoteOptions{Enabled: true, NoWait: true, Resubmit: true, PollInterval: 5 * time.Second}, false},
		{"no wait alone", []string{"-f", "q.jsonl", "--no-wait"}, cmdutil.RemoteOptions{NoWait: true, PollInterval: 30 * time.Second}, true},
		{"too short", []string{"-f", "q.jsonl", "--remote", "--poll-interval", "10ms"}, cmdutil.RemoteOptions{Enabled: true, PollInterval: 10 * time.Millisecond}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _ := cmdutil.TestIO("", false)
			var got *Options
			cmd := NewCmdBatch(&factory.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(_ context.Context, o *Options) error { got = o; return nil })
			cmd.OnUsageError = cmdutil.MarkUsage
			if err := cmd.Run(context.Background(), append([]string{"batch"}, tc.args...)); err != nil || got == nil {
				t.Fatalf("err %v", err)
			}
			if got.Remote != tc.want {
				t.Fatalf("remote options %+v, want %+v", got.Remote, tc.want)
			}
			if err := got.Remote.Check(); (err != nil) != tc.check || (err != nil && !cmdutil.IsUsage(err)) {
				t.Fatalf("Check() = %v, want refused %v", err, tc.check)
			}
		})
	}
}

func TestNewCmdJobsAndCancel(t *testing.T) {
	t.Parallel()
	ios, _, _ := cmdutil.TestIO("", false)
	f := &factory.Factory{Factory: &cmdutil.Factory{IO: ios}}
	var jobs *JobsOptions
	cmd := newCmdJobs(f, func(_ context.Context, o *JobsOptions) error { jobs = o; return nil })
	if err := cmd.Run(context.Background(), []string{"jobs", "-o", "json", "--limit", "3"}); err != nil || jobs.Format != "json" || jobs.Limit != 3 {
		t.Fatalf("jobs: %v %+v", err, jobs)
	}
	var cancel *CancelOptions
	cmd = newCmdCancel(f, func(_ context.Context, o *CancelOptions) error { cancel = o; return nil })
	if err := cmd.Run(context.Background(), []string{"cancel", "abc123"}); err != nil || cancel.Job != "abc123" {
		t.Fatalf("cancel: %v %+v", err, cancel)
	}
	for _, args := range [][]string{{"cancel"}, {"cancel", "a", "b"}} {
		cmd = newCmdCancel(f, func(context.Context, *CancelOptions) error { return nil })
		if err := cmd.Run(context.Background(), args); !cmdutil.IsUsage(err) {
			t.Fatalf("%v: %v, want a usage error", args, err)
		}
	}
}
