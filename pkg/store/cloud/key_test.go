package cloud_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/store/cloud"
)

func TestWorkspaceKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	project := testenv.NewProjectID()
	_, sc := testenv.GCS(t)
	bucket := sc.Bucket(testenv.Bucket)
	// two analysts: two clients of the same project
	fs1 := testenv.FirestoreClient(t, project, "")
	fs2 := testenv.FirestoreClient(t, project, "")
	a, err := openStore(t, fs1, bucket, "", "team").WorkspaceKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != cloud.WorkspaceKeyLen || bytes.Equal(a, make([]byte, len(a))) {
		t.Fatalf("key of %d bytes: %x", len(a), a)
	}
	b, err := openStore(t, fs2, bucket, "", "team").WorkspaceKey(ctx)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("second analyst: %x, %v", b, err)
	}
	other, err := openStore(t, fs2, bucket, "", "other").WorkspaceKey(ctx)
	if err != nil || bytes.Equal(a, other) {
		t.Fatalf("other workspace: %x, %v", other, err)
	}
	elsewhere, err := openStore(t, testenv.Firestore(t), bucket, "", "team").WorkspaceKey(ctx)
	if err != nil || bytes.Equal(a, elsewhere) {
		t.Fatalf("other project: %x, %v", elsewhere, err)
	}
}

func TestWorkspaceKeyRace(t *testing.T) {
	t.Parallel()
	project := testenv.NewProjectID()
	_, sc := testenv.GCS(t)
	bucket := sc.Bucket(testenv.Bucket)
	const n = 5
	stores := make([]*cloud.Store, n)
	for i := range stores {
		stores[i] = openStore(t, testenv.FirestoreClient(t, project, ""), bucket, "", "race")
	}
	keys := make([][]byte, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() {
			<-start
			keys[i], errs[i] = stores[i].WorkspaceKey(context.Background())
		})
	}
	close(start)
	wg.Wait()
	for i := range keys {
		if errs[i] != nil || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("analyst %d: %x, %v (analyst 0: %x)", i, keys[i], errs[i], keys[0])
		}
	}
}
