package remote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/session"
)

// Keys match a job's answers to its questions: the service does not promise order. A question
// on input line L is asked as "q<L>" (or "q<L>@<N>" when it continues a history that held N
// contents when it was submitted) and its new history's title as "t<L>". On Vertex AI the key
// also goes in the request's labels (keyLabel, "@" written "-" as label values require):
// Vertex AI echoes each request beside its prediction, and may drop the line's own key.

// keyLabel is the request label that holds a request's key on Vertex AI.
const keyLabel = "alertchat_key"

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

// label is the key as a label value.
func (k key) label() string { return strings.ReplaceAll(k.String(), "@", "-") }

// parseKey reads a key, or a key label.
func parseKey(s string) (key, error) {
	var k key
	if len(s) < 2 || (s[0] != 'q' && s[0] != 't') {
		return k, goerr.New("not a request key", goerr.V("key", s))
	}
	k.title = s[0] == 't'
	body, at, hasAt := strings.Cut(strings.Replace(s[1:], "-", "@", 1), "@")
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
		out[i] = inlinedRequest(model, it)
	}
	return out
}

func inlinedRequest(model string, it item) *genai.InlinedRequest {
	return &genai.InlinedRequest{Model: model, Contents: it.req.Contents, Config: it.req.Config,
		Metadata: map[string]string{"key": it.key.String()}}
}

// generationFields are the GenerateContentConfig fields that the REST request carries at its
// top level; every other field belongs in its generationConfig.
var topLevelFields = map[string]bool{
	"systemInstruction": true, "tools": true, "toolConfig": true, "safetySettings": true,
	"cachedContent": true, "labels": true,
}

// restRequest is a request as the Batch API's JSONL file holds it: the REST body of
// generateContent, whose layout differs from the SDK's GenerateContentConfig. labels, when
// set, are added to the request's.
func restRequest(r session.Request, labels map[string]string) (map[string]any, error) {
	out := map[string]any{"contents": r.Contents}
	if len(labels) > 0 {
		all := map[string]string{}
		if r.Config != nil {
			maps.Copy(all, r.Config.Labels)
		}
		maps.Copy(all, labels)
		out["labels"] = all
	}
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
		case k == "httpOptions", k == "labels" && len(labels) > 0:
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

// submission gathers a job's requests as they are prepared, one question at a time: held for
// an inlined job while their encoding stays under the limit, else written to a JSONL file (the
// Batch API's input format) as they come, so a large job is never held whole.
type submission struct {
	model   string
	limit   int
	tempDir string
	// labels puts each request's key in its labels too (Vertex AI).
	labels bool

	held     []item
	size     int // bytes of the held requests, encoded
	inlineOK bool

	f        *os.File
	unlinked bool // f's name is removed already
	bw       *bufio.Writer
	enc      *json.Encoder
	n        int64 // bytes written to the file
}

func newSubmission(model string, limit int, fileOnly, labels bool, tempDir string) *submission {
	return &submission{model: model, limit: limit, tempDir: tempDir, inlineOK: !fileOnly, labels: labels}
}

// add takes one request.
func (s *submission) add(it item) error {
	if s.inlineOK {
		b, err := json.Marshal(inlinedRequest(s.model, it))
		if err != nil {
			return goerr.Wrap(err, "failed to encode a request")
		}
		if s.size += len(b) + 1; s.size <= s.limit {
			s.held = append(s.held, it)
			return nil
		}
		// Too large to inline: from here on, a file.
		s.inlineOK = false
		held := s.held
		s.held = nil
		for _, h := range held {
			if err := s.write(h); err != nil {
				return err
			}
		}
	}
	return s.write(it)
}

// write appends one {"key", "request"} line to the file.
func (s *submission) write(it item) error {
	if s.f == nil {
		f, err := os.CreateTemp(s.tempDir, "alertchat-batch-*.jsonl")
		if err != nil {
			return goerr.Wrap(err, "failed to write the job's input file")
		}
		// The file holds the questions unredacted: unlinked at once, it is gone with the
		// process however that ends, and no other user can open it by name meanwhile. Where
		// an open file cannot be removed (Windows), close removes it.
		if os.Remove(f.Name()) == nil {
			s.unlinked = true
		}
		s.f, s.bw = f, bufio.NewWriterSize(f, 1<<16)
		s.enc = json.NewEncoder(&countingWriter{w: s.bw, n: &s.n})
		s.enc.SetEscapeHTML(false)
	}
	var labels map[string]string
	if s.labels {
		labels = map[string]string{keyLabel: it.key.label()}
	}
	req, err := restRequest(it.req, labels)
	if err != nil {
		return err
	}
	if err := s.enc.Encode(map[string]any{"key": it.key.String(), "request": req}); err != nil {
		return goerr.Wrap(err, "failed to write the job's input file")
	}
	return nil
}

// inline reports whether the job goes with its requests inlined; then they are these.
func (s *submission) inline() ([]*genai.InlinedRequest, bool) {
	if !s.inlineOK {
		return nil, false
	}
	return inlined(s.model, s.held), true
}

// file finishes the input file and returns it from its start, with its size.
func (s *submission) file() (io.Reader, int64, error) {
	if s.f == nil {
		return nil, 0, goerr.New("a batch job needs at least one request")
	}
	if err := s.bw.Flush(); err != nil {
		return nil, 0, goerr.Wrap(err, "failed to write the job's input file")
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, goerr.Wrap(err, "failed to read the job's input file")
	}
	return s.f, s.n, nil
}

// close removes the file, if any.
func (s *submission) close() {
	if s.f != nil {
		_ = s.f.Close()
		if !s.unlinked {
			_ = os.Remove(s.f.Name())
		}
	}
}

type countingWriter struct {
	w io.Writer
	n *int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}
