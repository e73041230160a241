// Package alert turns an analyst's JSON file into a stored alert: validation, a content-derived
// ID, and a display title.
package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
)

// MaxSize is the largest alert accepted. An alert is placed in every request's system
// instruction, so a bigger one would exhaust the model's context anyway.
const MaxSize = 8 << 20

// ErrInvalid is returned for input that is not a usable alert.
var ErrInvalid = errors.New("invalid alert")

// namespace makes alert IDs UUIDv5 values derived from the canonical JSON.
var namespace = uuid.MustParse("8f1f4cb4-6a3e-4d0c-9a55-3c3b7b0c7a11")

// Parse validates data (a JSON object or array, UTF-8, at most MaxSize) and returns the alert
// to store: the bytes as given, an ID derived from the canonical JSON, and a title.
func Parse(data []byte) (*record.Alert, error) {
	if len(data) > MaxSize {
		return nil, goerr.Wrap(ErrInvalid, "alert is too large", goerr.V("size", len(data)), goerr.V("max", MaxSize))
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, goerr.Wrap(ErrInvalid, "alert is empty")
	}
	if !utf8.Valid(trimmed) {
		return nil, goerr.Wrap(ErrInvalid, "alert is not UTF-8 text (binary file?)")
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		return nil, goerr.Wrap(ErrInvalid, "alert must be a JSON object or array")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, goerr.Wrap(ErrInvalid, "alert is not valid JSON: "+err.Error())
	}
	if dec.More() {
		return nil, goerr.Wrap(ErrInvalid, "alert has trailing data after the JSON value")
	}
	if _, err := dec.Token(); err == nil {
		return nil, goerr.Wrap(ErrInvalid, "alert has trailing data after the JSON value")
	}
	canonical, err := canonicalJSON(v)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to canonicalise alert")
	}
	return &record.Alert{
		ID:    record.AlertID(uuid.NewSHA1(namespace, canonical).String()),
		Title: Title(v),
		Data:  json.RawMessage(trimmed),
	}, nil
}

// canonicalJSON re-encodes v with sorted keys, no insignificant space and numbers as written,
// so formatting and key order do not change an alert's ID.
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// titleKeys are tried in order at each level, covering GuardDuty, Security Command Center and
// common generic shapes.
var titleKeys = []string{"Title", "title", "category", "Category", "Name", "name", "Type", "type", "Description", "description"}

// containerKeys hold the finding itself in common alert envelopes.
var containerKeys = []string{"Findings", "findings", "finding", "Finding", "alert", "Alert", "detail", "data"}

// Title finds a human-readable title in a decoded alert, or "".
func Title(v any) string {
	return findTitle(v, 0)
}

func findTitle(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch x := v.(type) {
	case []any:
		if len(x) > 0 {
			return findTitle(x[0], depth+1)
		}
	case map[string]any:
		for _, k := range containerKeys {
			if inner, ok := x[k]; ok {
				if t := findTitle(inner, depth+1); t != "" {
					return t
				}
			}
		}
		for _, k := range titleKeys {
			if s, ok := x[k].(string); ok && strings.TrimSpace(s) != "" {
				return format.Truncate(strings.Join(strings.Fields(s), " "), maxTitleWidth, "...")
			}
		}
	}
	return ""
}

// maxTitleWidth bounds an alert's title, in display columns.
const maxTitleWidth = 100

// Putter is what storing an alert needs.
type Putter interface {
	PutAlert(ctx context.Context, a *record.Alert) (bool, error)
}

// Put stores a parsed alert (a no-op when it is there already), stamped now.
func Put(ctx context.Context, s Putter, a *record.Alert, now time.Time) error {
	a.CreatedAt = now
	if _, err := s.PutAlert(ctx, a); err != nil {
		return goerr.Wrap(err, "failed to store alert", goerr.V("alert_id", a.ID))
	}
	return nil
}
