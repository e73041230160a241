package store

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

// EncodeTranscript marshals a transcript exactly as the genai SDK's types marshal: a JSON array
// of Content.
func EncodeTranscript(contents []*genai.Content) ([]byte, error) {
	if contents == nil {
		contents = []*genai.Content{}
	}
	data, err := json.Marshal(contents)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to encode transcript")
	}
	return data, nil
}

// WriteTranscript streams the same encoding as EncodeTranscript to w, without holding the whole
// document in memory.
func WriteTranscript(w io.Writer, contents []*genai.Content) error {
	if contents == nil {
		contents = []*genai.Content{}
	}
	if err := json.NewEncoder(w).Encode(contents); err != nil {
		return goerr.Wrap(err, "failed to encode transcript")
	}
	return nil
}

// DecodeTranscript parses a transcript object. The error names the history, so a corrupt or
// truncated object can be found.
func DecodeTranscript(id record.HistoryID, data []byte) ([]*genai.Content, error) {
	var contents []*genai.Content
	if err := json.Unmarshal(data, &contents); err != nil {
		return nil, goerr.Wrap(err, "corrupt transcript of history "+string(id),
			goerr.V("history_id", id), goerr.V("size", len(data)))
	}
	for i, c := range contents {
		if c == nil {
			return nil, goerr.New("corrupt transcript of history "+string(id)+": null content",
				goerr.V("history_id", id), goerr.V("index", i))
		}
	}
	return contents, nil
}

// NewHistoryID returns a random history ID.
func NewHistoryID() record.HistoryID { return record.HistoryID(uuid.NewString()) }

// ValidHistoryID reports whether id has the shape of a history ID. Stores refuse anything else,
// so an ID can never escape its key layout (no "/" or "..").
func ValidHistoryID(id record.HistoryID) bool {
	_, err := uuid.Parse(string(id))
	return err == nil && len(id) == 36
}

var workspacePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidWorkspace reports whether ws is a usable workspace name.
func ValidWorkspace(ws string) bool { return workspacePattern.MatchString(ws) }

// Now returns the current time in the precision every backend keeps (UTC microseconds), so a
// record reads back equal to what was written.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// EncodeCursor makes an opaque page cursor from the last record of a page.
func EncodeCursor(t time.Time, id string) string {
	raw := strconv.FormatInt(t.UnixMicro(), 10) + "|" + id
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor parses a cursor made by EncodeCursor.
func DecodeCursor(c string) (time.Time, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", goerr.Wrap(ErrInvalid, "bad cursor", goerr.V("cursor", c))
	}
	ts, id, ok := strings.Cut(string(raw), "|")
	if !ok || id == "" {
		return time.Time{}, "", goerr.Wrap(ErrInvalid, "bad cursor", goerr.V("cursor", c))
	}
	micros, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, "", goerr.Wrap(ErrInvalid, "bad cursor", goerr.V("cursor", c))
	}
	return time.UnixMicro(micros).UTC(), id, nil
}
