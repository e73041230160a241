package store

import (
	"context"
	"encoding/json"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
)

// ObjectInfo describes one object in a store's transcript key space ({prefix}histories/).
type ObjectInfo struct {
	Key string
	// ID is the history whose transcript the key holds; empty for a key that is not a
	// transcript key ({id}.json) and for temporary files.
	ID record.HistoryID
	// Workspace is the workspace the object says it belongs to, when the backend records one
	// (Cloud Storage object metadata); empty when unknown.
	Workspace string
	// Temp is set for a temporary file of an unfinished or interrupted write (local store).
	Temp    bool
	Size    int64
	Updated time.Time
}

// Checker checks and repairs a store (alertchat history fsck). The object key space is
// shared by every workspace of a backend, so listing objects sees them all; metadata stays
// scoped to the store's workspace except for MetadataExists.
type Checker interface {
	// ListObjects lists every object under {prefix}histories/.
	ListObjects(ctx context.Context) ([]ObjectInfo, error)
	// ListHistoryIDs lists the IDs of this workspace's metadata records, whether or not they
	// parse.
	ListHistoryIDs(ctx context.Context) ([]record.HistoryID, error)
	// MetadataExists reports whether a metadata record of id exists in any workspace, so an
	// object of another workspace is never taken for an orphan.
	MetadataExists(ctx context.Context, id record.HistoryID) (bool, error)
	// ReadObject returns an object's bytes; a missing object is ErrNotFound.
	ReadObject(ctx context.Context, key string) ([]byte, error)
	// MoveAside moves an object out of the transcript key space into {prefix}lost+found/ and
	// returns its new key. A temporary file is removed instead (returned key "").
	MoveAside(ctx context.Context, key string) (string, error)
	// DropMetadata removes this workspace's metadata record of id, keeping a copy of it with
	// reason in {prefix}lost+found/, and returns the copy's key.
	DropMetadata(ctx context.Context, id record.HistoryID, reason string) (string, error)
}

// LostAndFoundKey is where a moved-aside object or metadata record goes:
// {prefix}lost+found/{name}.
func LostAndFoundKey(prefix, name string) string { return prefix + "lost+found/" + name }

// UniqueLostAndFoundKey is the lost+found key of name with a timestamp before its extension,
// so moving the same name aside twice keeps both.
func UniqueLostAndFoundKey(prefix, name string) string {
	ext := path.Ext(name)
	return LostAndFoundKey(prefix, strings.TrimSuffix(name, ext)+"."+strconv.FormatInt(time.Now().UnixNano(), 10)+ext)
}

// LostMetadata is the lost+found copy of a history's metadata that a repair removes: why, the
// workspace, and the metadata as the backend held it (raw when it was not even JSON).
type LostMetadata struct {
	Reason    string `json:"reason"`
	Workspace string `json:"workspace"`
	Metadata  any    `json:"metadata,omitempty"`
	Raw       string `json:"raw,omitempty"`
}

// Encode is the copy as written to lost+found.
func (m LostMetadata) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, goerr.Wrap(err, "failed to encode metadata copy")
	}
	return data, nil
}
