package testenv

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// GCSObjects reads and writes whole objects through a storage client: what the fake Gemini
// server's Vertex AI batch jobs (geminitest.VertexBatches.Objects) need of fake-gcs-server.
type GCSObjects struct{ Client *storage.Client }

// ReadObject returns the content of bucket/name.
func (o GCSObjects) ReadObject(ctx context.Context, bucket, name string) ([]byte, error) {
	r, err := o.Client.Bucket(bucket).Object(name).NewReader(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	return io.ReadAll(r)
}

// WriteObject replaces bucket/name with data.
func (o GCSObjects) WriteObject(ctx context.Context, bucket, name string, data []byte) error {
	w := o.Client.Bucket(bucket).Object(name).NewWriter(ctx)
	w.ContentType = "application/jsonl"
	if _, err := w.Write(data); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// VertexCredentials are Google credentials that hold a fixed bearer token, for a genai client
// on the Vertex AI backend pointed at the fake Gemini server (which checks that a token is
// sent, not what it is).
func VertexCredentials() *auth.Credentials {
	return auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: fixedToken{}})
}

type fixedToken struct{}

func (fixedToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: "test-token", Type: "Bearer", Expiry: time.Now().Add(time.Hour)}, nil
}

// ObjectNames lists the names of the bucket's objects under prefix.
func ObjectNames(t testing.TB, b *storage.BucketHandle, prefix string) []string {
	t.Helper()
	var names []string
	it := b.Objects(context.Background(), &storage.Query{Prefix: prefix})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return names
		}
		if err != nil {
			t.Fatalf("list %s: %v", prefix, err)
		}
		names = append(names, a.Name)
	}
}
