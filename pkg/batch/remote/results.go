package remote

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"
)

// answer is what a job answered to one question's request (its title aside).
type answer struct {
	resp *genai.GenerateContentResponse
	err  error
	at   int // see key.at
}

// results are a job's answers by input line.
type results struct {
	answers map[int]answer
	titles  map[int]*genai.GenerateContentResponse
	// unmatched counts result lines with no key that names a request of the job.
	unmatched int

	// input reads the job's own input, to match a prediction that names no key (Vertex AI may
	// drop the line's key and the request's labels) by its echoed request; nil when there is
	// none to read. It is read once, at the first such prediction.
	input    func() (io.ReadCloser, error)
	index    *requestIndex
	indexErr error
}

func newResults() *results {
	return &results{answers: map[int]answer{}, titles: map[int]*genai.GenerateContentResponse{}}
}

// ErrJobError is the error of a request the job failed.
var ErrJobError = errors.New("the batch job failed this request")

// requestError is a request the job failed, with the service's error as the API error a
// direct call would have met: a question's line describes it as a local batch's would.
type requestError struct{ api genai.APIError }

func (e *requestError) Error() string   { return ErrJobError.Error() + ": " + e.api.Error() }
func (e *requestError) Unwrap() []error { return []error{ErrJobError, e.api} }

func noResponse(why string) error { return goerr.Wrap(ErrJobError, why) }

// add records the answer of the request named k.
func (r *results) add(k string, resp *genai.GenerateContentResponse, err error) {
	kk, kerr := parseKey(k)
	if kerr != nil {
		r.unmatched++
		return
	}
	if kk.title {
		if err == nil {
			r.titles[kk.line] = resp
		}
		return
	}
	r.answers[kk.line] = answer{resp: resp, err: err, at: kk.at}
}

// has reports whether the request named k has a result already.
func (r *results) has(k string) bool {
	kk, err := parseKey(k)
	if err != nil {
		return false
	}
	if kk.title {
		_, ok := r.titles[kk.line]
		return ok
	}
	_, ok := r.answers[kk.line]
	return ok
}

// addInlined takes the answers of a job whose requests were inlined.
func (r *results) addInlined(rs []*genai.InlinedResponse) {
	for _, ir := range rs {
		if ir == nil {
			continue
		}
		var err error
		if ir.Error != nil {
			code := 0
			if ir.Error.Code != nil {
				code = int(*ir.Error.Code)
			}
			err = &requestError{apiError(code, ir.Error.Message, "", detailMaps(ir.Error.Details))}
		} else if ir.Response == nil {
			err = noResponse("the job returned no response")
		}
		r.add(ir.Metadata["key"], ir.Response, err)
	}
}

// resultLine is one line of a job's results: the Gemini API's {"key", "response"} or {"key",
// "error"}, or Vertex AI's {"status", "processed_time", "request", "response"}.
type resultLine struct {
	Key      string          `json:"key"`
	Response json.RawMessage `json:"response"`
	Error    *struct {
		Code    json.Number       `json:"code"`
		Message string            `json:"message"`
		Status  string            `json:"status"`
		Details []json.RawMessage `json:"details"`
	} `json:"error"`
	Status  *string         `json:"status"`
	Request json.RawMessage `json:"request"`
}

// keyPattern finds the key of a line that is not JSON as a whole.
var keyPattern = regexp.MustCompile(`"(?:key|` + keyLabel + `)"\s*:\s*"([qt][0-9]+(?:[@-][0-9]+)?)"`)

// readFile takes the answers of a job's results file, a line at a time: the file is never held
// whole. A line that cannot be read becomes the error of the question its key names.
func (r *results) readFile(rd io.Reader) error {
	br := bufio.NewReaderSize(rd, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			r.addLine(line)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return goerr.Wrap(err, "failed to read the job's results")
		}
	}
}

func (r *results) addLine(line []byte) {
	var rl resultLine
	if err := json.Unmarshal(line, &rl); err != nil {
		if m := keyPattern.FindSubmatch(line); m != nil {
			r.add(string(m[1]), nil, noResponse("the job's result line could not be read: "+err.Error()))
			return
		}
		r.unmatched++
		return
	}
	k := rl.Key
	if k == "" && len(rl.Request) > 0 {
		k = r.requestKey(rl.Request)
	}
	switch {
	case rl.Error != nil:
		code, _ := strconv.Atoi(rl.Error.Code.String())
		r.add(k, nil, &requestError{apiError(code, rl.Error.Message, rl.Error.Status, rawDetails(rl.Error.Details))})
	case rl.Status != nil && *rl.Status != "":
		r.add(k, nil, &requestError{vertexStatusError(*rl.Status)})
	case len(rl.Response) == 0 || string(rl.Response) == "null":
		r.add(k, nil, noResponse("the job returned no response"))
	default:
		var resp genai.GenerateContentResponse
		if err := json.Unmarshal(rl.Response, &resp); err != nil {
			r.add(k, nil, noResponse("the job's response could not be read: "+err.Error()))
			return
		}
		r.add(k, &resp, nil)
	}
}

// rawDetails decodes a status's details, objects or texts.
func rawDetails(ds []json.RawMessage) []map[string]any {
	if len(ds) == 0 {
		return nil
	}
	texts := make([]string, len(ds))
	for i, d := range ds {
		var s string
		if json.Unmarshal(d, &s) == nil {
			texts[i] = s
		} else {
			texts[i] = string(d)
		}
	}
	return detailMaps(texts)
}

// requestKey is the key of a prediction that names none, from its echoed request: the key
// label the request was sent with, else the key of the input request that asked the same
// (see fingerprint); "" when neither is found.
func (r *results) requestKey(req json.RawMessage) string {
	var labels struct {
		Labels map[string]string `json:"labels"`
	}
	if json.Unmarshal(req, &labels) == nil {
		if k := labels.Labels[keyLabel]; k != "" {
			return k
		}
	}
	if r.input == nil || r.indexErr != nil {
		return ""
	}
	if r.index == nil {
		if r.index, r.indexErr = readIndex(r.input); r.indexErr != nil {
			return ""
		}
	}
	fp, ok := fingerprint(req)
	if !ok {
		return ""
	}
	return r.index.take(fp, r.has)
}

// requestIndex finds the keys of a job's requests by their fingerprints.
type requestIndex struct{ keys map[string][]string }

// readIndex reads a job's input file, {"key", "request"} lines.
func readIndex(open func() (io.ReadCloser, error)) (*requestIndex, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	x := &requestIndex{keys: map[string][]string{}}
	br := bufio.NewReaderSize(rc, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		var l struct {
			Key     string          `json:"key"`
			Request json.RawMessage `json:"request"`
		}
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &l) == nil && l.Key != "" {
			if fp, ok := fingerprint(l.Request); ok {
				x.keys[fp] = append(x.keys[fp], l.Key)
			}
		}
		if errors.Is(err, io.EOF) {
			return x, nil
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to read the job's input")
		}
	}
}

// take returns the first key of fp that has no result yet. Requests with one fingerprint ask
// the same thing of the same alert and history: any of their answers answers each of them.
func (x *requestIndex) take(fp string, answered func(string) bool) string {
	for _, k := range x.keys[fp] {
		if !answered(k) {
			return k
		}
	}
	return ""
}

// fingerprint identifies a request by what it asks, however it is re-encoded: the texts of
// its system instruction (where the alert is) and of its contents with their roles, function
// calls and responses by name. Configuration is left out: the answer and the title of a
// question already differ in their contents.
func fingerprint(req json.RawMessage) (string, bool) {
	var r struct {
		SystemInstruction      *genai.Content   `json:"systemInstruction"`
		SystemInstructionSnake *genai.Content   `json:"system_instruction"`
		Contents               []*genai.Content `json:"contents"`
	}
	if json.Unmarshal(req, &r) != nil || len(r.Contents) == 0 {
		return "", false
	}
	h := sha256.New()
	write := func(tag byte, s string) {
		h.Write([]byte{tag})
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	sys := r.SystemInstruction
	if sys == nil {
		sys = r.SystemInstructionSnake
	}
	contents := r.Contents
	if sys != nil {
		contents = append([]*genai.Content{{Role: "system", Parts: sys.Parts}}, contents...)
	}
	for _, c := range contents {
		if c == nil {
			continue
		}
		role := c.Role
		if role == "" {
			role = genai.RoleUser
		}
		write('r', role)
		for _, p := range c.Parts {
			switch {
			case p == nil:
			case p.FunctionCall != nil:
				write('c', p.FunctionCall.Name)
			case p.FunctionResponse != nil:
				write('f', p.FunctionResponse.Name)
			case p.Text != "":
				write('t', p.Text)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
