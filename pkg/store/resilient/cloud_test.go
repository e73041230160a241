package resilient_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/store/cloud"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// TestCloudStoreBehindFaultProxy runs the cloud store with Cloud Storage behind a fault proxy
// and measures what a dead transcript service costs per save: a whole budget while the
// breaker is closed, nothing once it is open. Saves are retried through a 503 blip, and the
// breaker closes again once the service is back.
func TestCloudStoreBehindFaultProxy(t *testing.T) {
	t.Parallel()
	env := testenv.CloudEnv(t)
	proxy := testenv.NewFaultProxy(t, env.StorageURL)
	bucket := testenv.StorageClient(t, proxy.URL()).Bucket(env.Bucket)
	inner, err := cloud.New(cloud.Config{Firestore: env.Firestore, Bucket: bucket, Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	const budget = 3 * time.Second
	clk := newClock()
	s := resilient.New(inner, resilient.Options{Budget: budget, Cooldown: 2 * time.Second, Now: clk.Now})
	ctx := context.Background()
	h := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatal(err)
	}
	turn := func() {
		h.Contents = append(h.Contents, genai.NewContentFromText("more", genai.RoleUser))
		h.MessageCount = len(h.Contents)
	}

	// A blip shorter than the budget is ridden out: the service is back after the first
	// failed attempt.
	proxy.Set(testenv.Unavailable)
	faulted := proxy.Faulted()
	go func() {
		eventually.Within(budget, func() bool { return proxy.Faulted() > faulted })
		proxy.Set(testenv.Pass)
	}()
	turn()
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatalf("save through a blip: %v", err)
	}

	for _, fault := range []testenv.Fault{testenv.Refuse, testenv.Unavailable, testenv.Hang} {
		proxy.Set(fault)
		turn()
		rev := h.Revision
		err := s.SaveHistory(ctx, h)
		if err == nil || !resilient.IsTransient(err) || h.Revision != rev {
			t.Fatalf("%v: save %v (revision %d -> %d)", fault, err, rev, h.Revision)
		}
		requests := proxy.Requests()
		err = s.SaveHistory(ctx, h)
		if !errors.Is(err, resilient.ErrUnavailable) || proxy.Requests() != requests {
			t.Errorf("%v: with the breaker open: %v, %d requests to the service", fault, err, proxy.Requests()-requests)
		}
		// Back, and the cool-down over: the half-open probe saves and closes the breaker.
		proxy.Set(testenv.Pass)
		clk.Advance(2100 * time.Millisecond)
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatalf("%v: save after recovery: %v", fault, err)
		}
		if s.WriteBreaker().State() != resilient.Closed {
			t.Fatalf("%v: breaker %v after a successful probe", fault, s.WriteBreaker().State())
		}
	}
	got, err := inner.GetHistory(ctx, h.ID)
	if err != nil || len(got.Contents) != len(h.Contents) {
		t.Fatalf("stored after the outages: %v", err)
	}
}
