package chat

import (
	"context"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
)

func TestNewCmdChat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		check func(*Options) bool
		usage bool
	}{
		{"alert and question", []string{"-a", "al-1", "-q", "why?", "-o", "json"}, func(o *Options) bool {
			return o.AlertID == "al-1" && o.Query == "why?" && o.Output == "json"
		}, false},
		{"file, title, raw", []string{"-f", "a.json", "--title", "T", "--raw", "--no-title-generation", "--no-related"}, func(o *Options) bool {
			return o.File == "a.json" && o.Title == "T" && o.Raw && o.NoTitles && o.NoRelated
		}, false},
		{"resume", []string{"--history", "abcdef12"}, func(o *Options) bool { return o.HistoryID == "abcdef12" && o.Output == "text" }, false},
		{"continue auto, judge model", []string{"-a", "al-1", "--continue=auto", "--judge-model", "m"}, func(o *Options) bool {
			return o.AutoContinue && !o.Continue && o.JudgeModel == "m"
		}, false},
		{"unknown flag", []string{"--yaml"}, nil, true},
		{"flag without its value", []string{"-a"}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _ := cmdutil.TestIO("", false)
			f := &factory.Factory{Factory: &cmdutil.Factory{IO: ios}}
			var got *Options
			cmd := NewCmdChat(f, func(_ context.Context, o *Options) error { got = o; return nil })
			cmd.OnUsageError = cmdutil.MarkUsage
			err := cmd.Run(context.Background(), append([]string{"chat"}, tc.args...))
			if tc.usage {
				if !cmdutil.IsUsage(err) {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil || got == nil || !tc.check(got) {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}
