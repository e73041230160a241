package remote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/session"
)

// Keys match a job's answers to its questions: the service does not promise order. A question
// on input line L is asked as "q<L>" (or "q<L>@<N>" when it continues a history that held N
// contents when it was submitted) and its new history's title as "t<L>".

// key is what a request's key says.
type key struct {
	title bool
	line  int
	// at is how many contents the continued history held at submission (0 for a new one).
	at int
}

func (k key) String() string {
	switch {
	case k.title:
		return "t" + strconv.Itoa(k.line)
	case k.at > 0:
		return fmt.Sprintf("q%d@%d", k.line, k.at)
	}
	return "q" + strconv.Itoa(k.line)
}

func parseKey(s string) (key, error) {
	var k key
	if len(s) < 2 || (s[0] != 'q' && s[0] != 't') {
		return k, goerr.New("not a request key", goerr.V("key", s))
	}
	k.title = s[0] == 't'
	body, at, hasAt := strings.Cut(s[1:], "@")
	line, err := strconv.Atoi(body)
	if err != nil || line < 1 {
		return k, goerr.New("not a request key", goerr.V("key", s))
	}
	k.line = line
	if hasAt {
		if k.title {
			return k, goerr.New("not a request key", goerr.V("key", s))
		}
		if k.at, err = strconv.Atoi(at); err != nil || k.at < 1 {
			return k, goerr.New("not a request key", goerr.V("key", s))
		}
	}
	return k, nil
}

// item is one request of a job.
type item struct {
	key key
	req session.Request
}

// inlined is the job source of items sent in the create request.
func inlined(model string, items []item) []*genai.InlinedRequest {
	out := make([]*genai.InlinedRequest, len(items))
	for i, it := range items {
		out[i] = &genai.InlinedRequest{Model: model, Contents: it.req.Contents, Config: it.req.Config,
			Metadata: map[string]string{"key": it.key.String()}}
	}
	return out
}

// inlinedSize is about the size of the create request's body for items: what decides between
// an inlined job and an uploaded file.
func inlinedSize(model string, items []item) (int, error) {
	n := 0
	for _, r := range inlined(model, items) {
		b, err := json.Marshal(r)
		if err != nil {
			return 0, goerr.Wrap(err, "failed to encode a request")
		}
		n += len(b) + 1
	}
	return n, nil
}

// generationFields are the GenerateContentConfig fields that the REST request carries at its
// top level; every other field belongs in its generationConfig.
var topLevelFields = map[string]bool{
	"systemInstruction": true, "tools": true, "toolConfig": true, "safetySettings": true,
	"cachedContent": true, "labels": true,
}

// restRequest is a request as the Batch API's JSONL file holds it: the REST body of
// generateContent, whose layout differs from the SDK's GenerateContentConfig.
func restRequest(r session.Request) (map[string]any, error) {
	out := map[string]any{"contents": r.Contents}
	if r.Config == nil {
		return out, nil
	}
	b, err := json.Marshal(r.Config)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to encode a request's config")
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, goerr.Wrap(err, "failed to encode a request's config")
	}
	gen := map[string]json.RawMessage{}
	for k, v := range cfg {
		switch {
		case k == "httpOptions":
		case topLevelFields[k]:
			out[k] = v
		default:
			gen[k] = v
		}
	}
	if len(gen) > 0 {
		out["generationConfig"] = gen
	}
	return out, nil
}

// writeJSONL writes items as the Batch API's input file: one {"key", "request"} a line.
func writeJSONL(w io.Writer, items []item) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := &countingWriter{w: bw}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		req, err := restRequest(it.req)
		if err != nil {
			return cw.n, err
		}
		if err := enc.Encode(map[string]any{"key": it.key.String(), "request": req}); err != nil {
			return cw.n, goerr.Wrap(err, "failed to write the job's input file")
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, goerr.Wrap(err, "failed to write the job's input file")
	}
	return cw.n, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
