package testenv

import (
	"context"
	"os"
	"testing"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
)

// EnvPubSubHost is the Pub/Sub emulator's address, set by the runner.
const EnvPubSubHost = "PUBSUB_EMULATOR_HOST"

// PubSubHost returns the Pub/Sub emulator address (host:port) that internal/cmd/testrun
// started. Without one the test is skipped, or fails under the runner
// (ALERTCHAT_TEST_REQUIRE_EMULATOR=1) and in CI (CI=true).
func PubSubHost(t testing.TB) string {
	t.Helper()
	if host := os.Getenv(EnvPubSubHost); host != "" {
		return host
	}
	if os.Getenv(EnvRequireEmulator) == "1" || os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set but the emulators are required here: %s", EnvPubSubHost, RunHint)
	}
	t.Skipf("%s is not set: %s", EnvPubSubHost, RunHint)
	return ""
}

// PubSub is a topic with one subscription on the emulator, in a fresh project.
type PubSub struct {
	Client       *pubsub.Client
	Project      string
	Topic        string // projects/P/topics/T
	Subscription string // projects/P/subscriptions/S
}

// NewPubSub makes a topic and a subscription of it (ack deadline ackDeadline seconds; 0: 10)
// in a fresh project of the emulator; the client is closed when the test ends.
func NewPubSub(t testing.TB, ackDeadline int32) *PubSub {
	t.Helper()
	PubSubHost(t)
	ctx := context.Background()
	project := NewProjectID()
	c, err := pubsub.NewClient(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ps := &PubSub{Client: c, Project: project, Topic: "projects/" + project + "/topics/alerts", Subscription: "projects/" + project + "/subscriptions/alertchat"}
	if _, err := c.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: ps.Topic}); err != nil {
		t.Fatal(err)
	}
	if ackDeadline == 0 {
		ackDeadline = 10
	}
	if _, err := c.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{Name: ps.Subscription, Topic: ps.Topic, AckDeadlineSeconds: ackDeadline}); err != nil {
		t.Fatal(err)
	}
	return ps
}

// Publish publishes each of data as a message, a thousand a request, and returns their IDs.
func (ps *PubSub) Publish(t testing.TB, data ...[]byte) []string {
	t.Helper()
	var ids []string
	for len(data) > 0 {
		n := min(len(data), 1000)
		msgs := make([]*pubsubpb.PubsubMessage, n)
		for i := range n {
			msgs[i] = &pubsubpb.PubsubMessage{Data: data[i]}
		}
		resp, err := ps.Client.TopicAdminClient.Publish(context.Background(), &pubsubpb.PublishRequest{Topic: ps.Topic, Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.GetMessageIds()...)
		data = data[n:]
	}
	return ids
}
