package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Input limits: the whole input is read before anything is asked, so that the total is known.
const (
	MaxQuestions  = 100_000
	MaxInputBytes = 64 << 20
)

// ErrTooLarge is returned by Parse for an input over the limits.
var ErrTooLarge = goerr.New("batch input too large")

// Question is one line of the input.
type Question struct {
	// Line is the 1-based line number in the input.
	Line int
	// ID is the caller's tag, echoed back as given (any JSON value); nil when absent.
	ID json.RawMessage
	// AlertID is the alert asked about; it may be empty when HistoryID is set.
	AlertID record.AlertID
	// Query is the question.
	Query string
	// HistoryID, when set, is the history the question continues (a full ID).
	HistoryID record.HistoryID
	// Err is set when the line cannot be asked; it becomes the line's error.
	Err error
}

// fields are the keys an input line may have.
var fields = map[string]bool{"id": true, "alert_id": true, "query": true, "history_id": true}

// Parse splits JSONL input into questions. Blank lines are skipped. A line that cannot be
// asked (bad JSON, missing or mistyped fields, unknown keys) is returned with its Err set, so
// that it is reported in its place; only an input over the limits fails the whole parse.
func Parse(data []byte) ([]Question, error) {
	if len(data) > MaxInputBytes {
		return nil, goerr.Wrap(ErrTooLarge, fmt.Sprintf("the input is larger than %d bytes", MaxInputBytes))
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := bytes.Split(data, []byte("\n"))
	count := 0
	for i, l := range lines {
		if lines[i] = bytes.TrimSpace(l); len(lines[i]) > 0 {
			count++
		}
	}
	if count > MaxQuestions {
		return nil, goerr.Wrap(ErrTooLarge, fmt.Sprintf("the input has %d questions, more than the limit of %d", count, MaxQuestions))
	}
	qs := make([]Question, 0, count)
	for i, l := range lines {
		if len(l) == 0 {
			continue
		}
		q := parseLine(l)
		q.Line = i + 1
		qs = append(qs, q)
	}
	return qs, nil
}

func parseLine(line []byte) Question {
	var q Question
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
		if line[0] != '{' || err == nil {
			q.Err = goerr.New("the line is not a JSON object")
		} else {
			q.Err = goerr.New("the line is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: "))
		}
		return q
	}
	if raw, ok := obj["id"]; ok {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err == nil {
			q.ID = buf.Bytes()
		}
	}
	var unknown []string
	for k := range obj {
		if !fields[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		q.Err = goerr.New(fmt.Sprintf("unknown field %q (the fields are id, alert_id, query, history_id)", unknown[0]))
		return q
	}
	str := func(key string) (string, error) {
		raw, ok := obj[key]
		if !ok || string(raw) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", goerr.New(fmt.Sprintf("%q must be a string", key))
		}
		return strings.TrimSpace(s), nil
	}
	alertID, err1 := str("alert_id")
	query, err2 := str("query")
	historyID, err3 := str("history_id")
	q.AlertID, q.Query, q.HistoryID = record.AlertID(alertID), query, record.HistoryID(historyID)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			q.Err = err
			return q
		}
	}
	_, hasQuery := obj["query"]
	switch {
	case q.Query == "" && hasQuery:
		q.Err = goerr.New(`"query" is empty`)
	case q.Query == "":
		q.Err = goerr.New(`missing "query"`)
	case q.AlertID == "" && q.HistoryID == "":
		q.Err = goerr.New(`missing "alert_id" (or "history_id" to continue a history)`)
	case q.HistoryID != "" && !store.ValidHistoryID(q.HistoryID):
		q.Err = goerr.New(fmt.Sprintf(`invalid "history_id" %q: give the full history ID`, string(q.HistoryID)))
	}
	return q
}
