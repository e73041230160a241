package lookup_test

import (
	"context"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/pkg/record"
)

type alertIDs []record.AlertID

func (a alertIDs) FindAlerts(_ context.Context, prefix string, limit int) ([]record.AlertID, error) {
	var out []record.AlertID
	for _, id := range a {
		if strings.HasPrefix(string(id), prefix) && len(out) < limit {
			out = append(out, id)
		}
	}
	return out, nil
}

func TestAlertID(t *testing.T) {
	t.Parallel()
	ids := alertIDs{"0f1e2d3c-aaaa", "0f1e2d3c-bbbb", "alert-1", "alert-10"}
	tests := []struct {
		arg  string
		want record.AlertID
		code int
	}{
		{"0f1e2d3c-a", "0f1e2d3c-aaaa", cmdutil.ExitOK},
		{"0f1e2d3c-bbbb", "0f1e2d3c-bbbb", cmdutil.ExitOK},
		{"0f1e2d3c", "", cmdutil.ExitUsage}, // ambiguous
		{"0f1e", "", cmdutil.ExitUsage},     // too short to stand for another ID
		{"alert-1", "alert-1", cmdutil.ExitOK},
		{"ffffffff", "", cmdutil.ExitNotFound},
		{"", "", cmdutil.ExitUsage},
	}
	for _, tc := range tests {
		got, err := lookup.AlertID(context.Background(), ids, tc.arg)
		if got != tc.want || cmdutil.ExitCode(err) != tc.code {
			t.Errorf("AlertID(%q) = %q, %v (exit %d); want %q, exit %d", tc.arg, got, err, cmdutil.ExitCode(err), tc.want, tc.code)
		}
	}
	_, err := lookup.AlertID(context.Background(), ids, "0f1e2d3c")
	if msg := cmdutil.Message(err); !strings.Contains(msg, "0f1e2d3c-aaaa") || !strings.Contains(msg, "0f1e2d3c-bbbb") {
		t.Errorf("an ambiguous prefix does not list the candidates: %q", msg)
	}
}
