package store_test

import (
	"sync"
	"testing"

	"github.com/alertchat/alertchat/pkg/store"
)

func TestCallCounter(t *testing.T) {
	t.Parallel()
	var nilCounter *store.CallCounter
	nilCounter.Add("x") // a store without a counter counts nothing, and does not panic
	if nilCounter.Total() != 0 || len(nilCounter.Counts()) != 0 || nilCounter.String() != "0 calls" {
		t.Fatalf("nil counter: %s", nilCounter)
	}

	c := &store.CallCounter{}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			c.Add("gcs.write")
			c.Add("firestore.get")
			c.AddN("firestore.get", 2)
		})
	}
	wg.Wait()
	if got, want := c.String(), "40 calls: firestore.get=30 gcs.write=10"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	counts := c.Counts()
	counts["gcs.write"] = 99 // a copy
	if c.Counts()["gcs.write"] != 10 {
		t.Fatal("Counts is not a copy")
	}
	c.Reset()
	if c.Total() != 0 {
		t.Fatalf("after Reset: %s", c)
	}
}
