package local_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// BenchmarkSearchAlerts searches 10,000 stored alerts by a raw indicator (one alert holds it),
// by a rare word and by a word every alert holds.
func BenchmarkSearchAlerts(b *testing.B) {
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: b.TempDir(), Workspace: "default"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 10_000
	for i := range n {
		data := fmt.Sprintf(`{"Type":"Recon:EC2/PortProbeUnprotectedPort","AccountId":"783957204773","Resource":{"InstanceId":"i-%08d"},"Service":{"RemoteIp":"198.%d.%d.%d","Port":%d,"Description":"port probe from a known scanner %d"}}`,
			i, i%250, (i/250)%250, i%200, 1000+i%5000, i)
		if _, err := s.PutAlert(ctx, &record.Alert{ID: record.AlertID(fmt.Sprintf("alert-%05d", i)), Title: "Unprotected port probed", Data: []byte(data)}); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []string{"198.17.0.17", "i-00004242", "PortProbeUnprotectedPort"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				hits, err := s.SearchAlerts(ctx, store.AlertSearchQuery{Text: q, Limit: 10})
				if err != nil || len(hits) == 0 {
					b.Fatal(err, len(hits))
				}
			}
		})
	}
}
