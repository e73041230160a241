package cloud

import (
	"context"
	"errors"
	"io"
	"path"
	"strings"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/storage"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var _ store.Checker = (*Store)(nil)

// ListObjects implements store.Checker: the objects under {prefix}histories/, with the
// workspace their metadata names.
func (s *Store) ListObjects(ctx context.Context) ([]store.ObjectInfo, error) {
	dir := path.Dir(store.ObjectKey(s.prefix, "x")) + "/"
	it := s.bucket.Objects(ctx, &storage.Query{Prefix: dir})
	var out []store.ObjectInfo
	for {
		attrs, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return out, nil
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to list transcript objects", goerr.V("prefix", dir))
		}
		o := store.ObjectInfo{Key: attrs.Name, Workspace: attrs.Metadata[workspaceKey], Size: attrs.Size, Updated: attrs.Updated.UTC()}
		name := strings.TrimPrefix(attrs.Name, dir)
		if id := record.HistoryID(strings.TrimSuffix(name, ".json")); strings.HasSuffix(name, ".json") && store.ValidHistoryID(id) {
			o.ID = id
		}
		out = append(out, o)
	}
}

// ListHistoryIDs implements store.Checker.
func (s *Store) ListHistoryIDs(ctx context.Context) ([]record.HistoryID, error) {
	it := s.histories().Where("workspace", "==", s.workspace).Select().Documents(ctx)
	defer it.Stop()
	var ids []record.HistoryID
	for {
		snap, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return ids, nil
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to list history IDs", goerr.V("workspace", s.workspace))
		}
		ids = append(ids, record.HistoryID(snap.Ref.ID))
	}
}

// MetadataExists implements store.Checker.
func (s *Store) MetadataExists(ctx context.Context, id record.HistoryID) (bool, error) {
	if !store.ValidHistoryID(id) {
		return false, nil
	}
	_, err := s.histories().Doc(string(id)).Get(ctx)
	switch {
	case err == nil:
		return true, nil
	case isCode(err, codes.NotFound):
		return false, nil
	}
	return false, goerr.Wrap(err, "failed to look up history", goerr.V("history_id", id))
}

// ReadObject implements store.Checker.
func (s *Store) ReadObject(ctx context.Context, key string) ([]byte, error) {
	r, err := s.bucket.Object(key).NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, goerr.Wrap(store.ErrNotFound, "object not found", goerr.V("key", key))
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read object", goerr.V("key", key))
	}
	defer func() { _ = r.Close() }()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read object", goerr.V("key", key))
	}
	return data, nil
}

// MoveAside implements store.Checker: the object is copied to {prefix}lost+found/, then
// deleted if it was not replaced meanwhile.
func (s *Store) MoveAside(ctx context.Context, key string) (string, error) {
	src := s.bucket.Object(key)
	attrs, err := src.Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return "", goerr.Wrap(store.ErrNotFound, "object not found", goerr.V("key", key))
	}
	if err != nil {
		return "", goerr.Wrap(err, "failed to read object attributes", goerr.V("key", key))
	}
	dest := store.UniqueLostAndFoundKey(s.prefix, path.Base(key))
	src = src.If(storage.Conditions{GenerationMatch: attrs.Generation})
	if _, err := s.bucket.Object(dest).CopierFrom(src).Run(ctx); err != nil {
		return "", goerr.Wrap(err, "failed to copy object aside", goerr.V("key", key), goerr.V("dest", dest))
	}
	if err := src.Delete(ctx); err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
		return "", goerr.Wrap(err, "object copied aside but not deleted", goerr.V("key", key), goerr.V("dest", dest))
	}
	return dest, nil
}

// DropMetadata implements store.Checker: the document, with reason, is written to
// {prefix}lost+found/{id}.{time}.meta.json, then deleted unless it changed meanwhile.
func (s *Store) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (string, error) {
	if !store.ValidHistoryID(id) {
		return "", notFound(id)
	}
	ref := s.histories().Doc(string(id))
	snap, err := ref.Get(ctx)
	if isCode(err, codes.NotFound) {
		return "", notFound(id)
	}
	if err != nil {
		return "", goerr.Wrap(err, "failed to read history metadata", goerr.V("history_id", id))
	}
	data := snap.Data()
	if ws, _ := data["workspace"].(string); ws != s.workspace {
		return "", notFound(id)
	}
	record, err := store.LostMetadata{Reason: reason, Workspace: s.workspace, Metadata: data}.Encode()
	if err != nil {
		return "", goerr.Wrap(err, "failed to keep the metadata", goerr.V("history_id", id))
	}
	dest := store.UniqueLostAndFoundKey(s.prefix, string(id)+".meta.json")
	w := s.bucket.Object(dest).If(storage.Conditions{DoesNotExist: true}).NewWriter(ctx)
	w.ContentType = "application/json"
	if _, err := w.Write(record); err != nil {
		_ = w.Close()
		return "", goerr.Wrap(err, "failed to write metadata copy", goerr.V("history_id", id))
	}
	if err := w.Close(); err != nil {
		return "", goerr.Wrap(err, "failed to write metadata copy", goerr.V("history_id", id))
	}
	if _, err := ref.Delete(ctx, firestore.LastUpdateTime(snap.UpdateTime)); err != nil {
		return "", goerr.Wrap(err, "failed to delete history metadata", goerr.V("history_id", id))
	}
	return dest, nil
}
