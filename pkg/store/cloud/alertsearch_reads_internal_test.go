package cloud

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// TestAlertSearchReadsBounded counts the documents one alert search reads on the emulator, for
// a word every alert holds, among 100 and then 300 alerts: the same bounded number.
func TestAlertSearchReadsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, reads := countingStore(t)
	stored := 0
	var perSearch []int64
	for _, n := range []int{100, 300} {
		for ; stored < n; stored++ {
			data, _ := json.Marshal(map[string]any{"Type": "Recon:EC2/PortProbeUnprotectedPort", "RemoteIp": fmt.Sprintf("198.51.%d.%d", stored/250, stored%250)})
			if _, err := s.PutAlert(ctx, &record.Alert{ID: record.AlertID(fmt.Sprintf("alert-%05d", stored)), Title: "Port probed", Data: data}); err != nil {
				t.Fatal(err)
			}
		}
		reads.n.Store(0)
		hits, err := s.SearchAlerts(ctx, store.AlertSearchQuery{Text: "PortProbeUnprotectedPort", Limit: 10})
		if err != nil || len(hits) != 10 {
			t.Fatalf("%d alerts: %v, %d hits", n, err, len(hits))
		}
		perSearch = append(perSearch, reads.n.Load())
	}
	if perSearch[0] != perSearch[1] || perSearch[0] > alertCandidates {
		t.Fatalf("documents read by one search among 100 and 300 alerts: %v (at most %d, and the same)", perSearch, alertCandidates)
	}
	t.Logf("documents read by one search: %v", perSearch)
}
