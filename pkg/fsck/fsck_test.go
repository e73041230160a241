package fsck

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
)

func kinds(fs []Finding) map[string][]Finding {
	m := map[string][]Finding{}
	for _, f := range fs {
		m[f.Kind] = append(m[f.Kind], f)
	}
	return m
}

// TestCheckCloud: on Firestore and Cloud Storage, fsck finds metadata without content, an
// unreadable transcript and an orphan, leaves another workspace alone, and repairs by moving
// aside, after which the store is consistent.
func TestCheckCloud(t *testing.T) {
	t.Parallel()
	env := testenv.CloudEnv(t)
	const prefix = "team/"
	open := func(ws string) *cloud.Store {
		s, err := cloud.New(cloud.Config{Firestore: env.Firestore, Bucket: env.BucketHandle(), Prefix: prefix, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, otherWS := open("default"), open("other")
	ctx := context.Background()
	healthy := storetest.NewHistory("a", storetest.EveryPartKind())
	missing := storetest.NewHistory("a", storetest.EveryPartKind())
	corrupt := storetest.NewHistory("a", storetest.EveryPartKind())
	for _, h := range []*record.History{healthy, missing, corrupt} {
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	other := storetest.NewHistory("a", storetest.EveryPartKind())
	if err := otherWS.SaveHistory(ctx, other); err != nil {
		t.Fatal(err)
	}
	bucket := env.BucketHandle()
	if err := bucket.Object(store.ObjectKey(prefix, missing.ID)).Delete(ctx); err != nil {
		t.Fatal(err)
	}
	put := func(key, data string) {
		w := bucket.Object(key).NewWriter(ctx)
		if _, err := io.WriteString(w, data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	put(store.ObjectKey(prefix, corrupt.ID), "not json")
	orphan := store.NewHistoryID()
	put(store.ObjectKey(prefix, orphan), "[]")

	opts := Options{Prefix: prefix, Workspace: "default"}
	fs, err := Check(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	k := kinds(fs)
	if len(k[KindMissingContent]) != 1 || len(k[KindCorruptContent]) != 1 || len(k[KindOrphan])+len(k[KindInProgress]) != 1 || len(fs) != 3 {
		t.Fatalf("findings %+v", fs)
	}
	opts.Repair = true
	if fs, err = Check(ctx, s, opts); err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Problem && !f.Repaired {
			t.Fatalf("not repaired: %+v", f)
		}
	}
	opts.Repair = false
	if fs, err = Check(ctx, s, opts); err != nil || len(fs) != 0 {
		t.Fatalf("after repair: %v %+v", err, fs)
	}
	if _, err := s.GetHistory(ctx, healthy.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := otherWS.GetHistory(ctx, other.ID); err != nil {
		t.Fatalf("the other workspace's history: %v", err)
	}
	if _, err := s.GetHistoryMeta(ctx, missing.ID); err == nil {
		t.Fatal("metadata without content is still listed")
	}
	var moved int
	objs, _ := s.ListObjects(ctx)
	for _, o := range objs {
		if o.ID == orphan || o.ID == corrupt.ID {
			t.Fatalf("%s is still in the transcript key space", o.Key)
		}
	}
	for _, key := range []string{string(orphan), string(corrupt.ID), string(missing.ID)} {
		it := bucket.Objects(ctx, nil)
		for {
			a, err := it.Next()
			if err != nil {
				break
			}
			if strings.HasPrefix(a.Name, prefix+"lost+found/"+key) {
				moved++
				break
			}
		}
	}
	if moved != 3 {
		t.Fatalf("%d of 3 moved to lost+found", moved)
	}
}
