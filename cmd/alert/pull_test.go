package alert_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

// alert pull stores the alerts of a subscription, one ID a line, and acknowledges them; a
// message that is not an alert is named, stores nothing, stays unacknowledged (Pub/Sub delivers
// it again after the ack deadline) and makes the exit status 2.
func TestAlertPull(t *testing.T) {
	t.Parallel()
	ps := testenv.NewPubSub(t, 10)
	dir := t.TempDir()
	msgIDs := ps.Publish(t,
		[]byte(sample(t, "scc-notification.json")),
		[]byte("this is not JSON"),
		[]byte(sample(t, "guardduty-findings.json")),
		[]byte(`42`),
	)
	start := time.Now()
	out, errOut, code := clitest.Run(t, dir, "", "alert", "pull", "--subscription", ps.Subscription, "--wait", "2s")
	ids := strings.Fields(out)
	if code != cmdutil.ExitUsage || len(ids) != 4 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, bad := range []string{msgIDs[1], msgIDs[3]} {
		if !strings.Contains(errOut, "message "+bad+": not an alert, left unacknowledged") {
			t.Errorf("stderr does not name message %s: %q", bad, errOut)
		}
	}
	for _, good := range []string{msgIDs[0], msgIDs[2]} {
		if strings.Contains(errOut, "message "+good+":") {
			t.Errorf("stderr names good message %s: %q", good, errOut)
		}
	}
	added, _, _ := clitest.Run(t, dir, sample(t, "scc-notification.json"), "alert", "add", "-f", "-")
	if strings.TrimSpace(added) != ids[0] {
		t.Errorf("the notification added from a file is %q, pulled %s", added, ids[0])
	}
	if l := listJSON(t, dir); len(l) != 4 {
		t.Fatalf("%d alerts stored, want 4", len(l))
	}
	// The bad messages come back once their ack deadline has passed; the good ones never.
	var back []string
	for time.Since(start) < 40*time.Second && len(back) < 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := ps.Client.SubscriptionAdminClient.Pull(ctx, &pubsubpb.PullRequest{Subscription: ps.Subscription, MaxMessages: 10})
		cancel()
		if err != nil {
			continue
		}
		for _, m := range resp.GetReceivedMessages() {
			back = append(back, m.GetMessage().GetMessageId())
		}
	}
	slices.Sort(back)
	want := []string{msgIDs[1], msgIDs[3]}
	slices.Sort(want)
	if !slices.Equal(back, want) {
		t.Fatalf("delivered again: %v, want the two bad messages %v", back, want)
	}
}

// One message that is not an alert is counted as one in the closing error.
func TestAlertPullOneRefused(t *testing.T) {
	t.Parallel()
	ps := testenv.NewPubSub(t, 10)
	ps.Publish(t, []byte(`{"title": "fine"}`), []byte("not JSON"))
	out, errOut, code := clitest.Run(t, t.TempDir(), "", "alert", "pull", "--subscription", ps.Subscription, "--wait", "2s")
	if code != cmdutil.ExitUsage || len(strings.Fields(out)) != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if want := "1 message of " + ps.Subscription + " is not an alert and was left unacknowledged"; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// --max stops after that many alerts; the rest wait for the next pull.
func TestAlertPullMax(t *testing.T) {
	t.Parallel()
	ps := testenv.NewPubSub(t, 60)
	dir := t.TempDir()
	var msgs [][]byte
	for i := range 5 {
		msgs = append(msgs, []byte(`{"rule": "r`+string(rune('a'+i))+`", "priority": "Notice", "output": "o"}`))
	}
	ps.Publish(t, msgs...)
	out, errOut, code := clitest.Run(t, dir, "", "alert", "pull", "--subscription", ps.Subscription, "--max", "2", "--wait", "3s")
	if code != 0 || len(strings.Fields(out)) != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = clitest.Run(t, dir, "", "alert", "pull", "--subscription", ps.Subscription, "--wait", "2s")
	if code != 0 || len(strings.Fields(out)) != 3 {
		t.Fatalf("second pull: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if l := listJSON(t, dir); len(l) != 5 || *l[0].Source != "falco" || *l[0].Severity != "low" {
		t.Fatalf("stored %+v", l)
	}
	out, _, code = clitest.Run(t, dir, "", "alert", "pull", "--subscription", ps.Subscription, "--wait", "1s")
	if code != 0 || out != "" {
		t.Fatalf("an empty subscription: exit %d, %q", code, out)
	}
}

func TestAlertPullUsage(t *testing.T) {
	t.Parallel()
	ps := testenv.NewPubSub(t, 10)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"alert", "pull"}, cmdutil.ExitUsage, "subscription"},
		{[]string{"alert", "pull", "--subscription", "alerts"}, cmdutil.ExitUsage, "projects/PROJECT/subscriptions/NAME"},
		{[]string{"alert", "pull", "--subscription", ps.Subscription, "--max", "-1"}, cmdutil.ExitUsage, "--max"},
		{[]string{"alert", "pull", "--subscription", ps.Subscription, "--wait", "0s"}, cmdutil.ExitUsage, "--wait"},
		{[]string{"alert", "pull", "--subscription", "projects/" + ps.Project + "/subscriptions/nope", "--wait", "2s"}, cmdutil.ExitNotFound, "no subscription"},
	} {
		_, errOut, code := clitest.Run(t, t.TempDir(), "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
