package cloud

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// keysCollection holds one document per workspace, document ID = workspace name, fields key
// (32 random bytes), created_at. Redaction tokens are derived from the key, so every analyst
// of the workspace gets the same token for the same value. Whoever can read the workspace's
// documents can read its key; restrict the collection like the histories (or supply an
// operator key and keep it elsewhere).
const keysCollection = "workspace_keys"

// WorkspaceKeyLen is the length of a generated workspace key.
const WorkspaceKeyLen = 32

type keyDoc struct {
	Key       []byte    `firestore:"key"`
	CreatedAt time.Time `firestore:"created_at"`
}

// WorkspaceKey returns the workspace's secret token key, creating a random one on first use.
// The document is created with Create (a does-not-exist precondition): of analysts racing on a
// new workspace one create wins and every other reads the winner's key.
func (s *Store) WorkspaceKey(ctx context.Context) ([]byte, error) {
	doc := s.fs.Collection(keysCollection).Doc(s.workspace)
	for attempt := 0; attempt < 3; attempt++ {
		snap, err := doc.Get(ctx)
		if err == nil {
			var kd keyDoc
			if err := snap.DataTo(&kd); err != nil {
				return nil, goerr.Wrap(err, "corrupt workspace key document", goerr.V("workspace", s.workspace))
			}
			if len(kd.Key) < WorkspaceKeyLen/2 {
				return nil, goerr.New("the stored workspace key is too short", goerr.V("workspace", s.workspace), goerr.V("length", len(kd.Key)))
			}
			return kd.Key, nil
		}
		if status.Code(err) != codes.NotFound {
			return nil, goerr.Wrap(err, "failed to read the workspace key", goerr.V("workspace", s.workspace))
		}
		fresh := make([]byte, WorkspaceKeyLen)
		if _, err := rand.Read(fresh); err != nil {
			return nil, goerr.Wrap(err, "failed to generate a workspace key")
		}
		_, err = doc.Create(ctx, keyDoc{Key: fresh, CreatedAt: time.Now().UTC()})
		if err == nil {
			return fresh, nil
		}
		if status.Code(err) != codes.AlreadyExists {
			return nil, goerr.Wrap(err, "failed to store a workspace key", goerr.V("workspace", s.workspace))
		}
		// another analyst created it first: read theirs
	}
	return nil, goerr.New("the workspace key could not be read after it was created", goerr.V("workspace", s.workspace))
}
