package cloud

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/firestore/apiv1/firestorepb"
	"google.golang.org/genai"
	"google.golang.org/grpc"

	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
)

// readCounter counts the documents Firestore returns to queries: the reads a search is
// billed for.
type readCounter struct{ n atomic.Int64 }

func (c *readCounter) intercept(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return nil, err
	}
	return &countingStream{ClientStream: s, c: c}, nil
}

type countingStream struct {
	grpc.ClientStream
	c *readCounter
}

func (s *countingStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if r, ok := m.(*firestorepb.RunQueryResponse); ok && err == nil && r.Document != nil {
		s.c.n.Add(1)
	}
	return err
}

// emulatorOwner is the credential the emulator expects (as the Firestore client sends it).
type emulatorOwner struct{}

func (emulatorOwner) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer owner"}, nil
}

func (emulatorOwner) RequireTransportSecurity() bool { return false }

type fixedEmbedder struct{ v []float32 }

func (f fixedEmbedder) Embed(_ context.Context, texts []string, _ bool) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f.v
	}
	return out, nil
}

// BenchmarkSearchReads reports the documents read by one search (words and meaning) among 1,000
// and 10,000 histories where the query's word is common: the limit, not the corpus, bounds it.
// Its time per search means nothing: the emulator scans every document (real Firestore uses
// the indexes of firestore.indexes.json).
func BenchmarkSearchReads(b *testing.B) {
	testenv.FirestoreHost(b)
	const dims = 64
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("histories=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s, fs, reads := countingStore(b)
			rng := rand.New(rand.NewPCG(7, 8))
			bw := fs.BulkWriter(ctx)
			base := store.Now()
			for i := range n {
				words := make([]string, 30)
				for j := range words {
					words[j] = fmt.Sprintf("w%d", rng.IntN(500))
				}
				h := &record.History{ID: store.NewHistoryID(), AlertID: record.AlertID(fmt.Sprintf("alert-%d", i%50)), Title: "t",
					CreatedAt: base, UpdatedAt: base.Add(-1e9 * 1), MessageCount: 2,
					Contents: []*genai.Content{genai.NewContentFromText(strings.Join(words, " "), genai.RoleUser), genai.NewContentFromText("common reply", genai.RoleModel)}}
				doc := newHistoryDoc(h, "default", 1, 1)
				indexDoc(doc, nil, h)
				v := make([]float32, dims)
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
				doc.Embedding, doc.EmbeddedCount = v, 2
				if _, err := bw.Create(s.histories().Doc(string(h.ID)), doc); err != nil {
					b.Fatal(err)
				}
			}
			bw.End()
			q := make([]float32, dims)
			for j := range q {
				q[j] = float32(rng.NormFloat64())
			}
			sr := search.New(search.Options{Embedder: fixedEmbedder{q}})
			reads.n.Store(0)
			var results int
			for b.Loop() {
				rs, err := sr.Search(ctx, s, search.Query{Text: "common w7", Limit: 20})
				if err != nil {
					b.Fatal(err)
				}
				results = len(rs)
			}
			b.ReportMetric(float64(reads.n.Load())/float64(b.N), "reads/search")
			b.ReportMetric(float64(results), "results")
		})
	}
}
