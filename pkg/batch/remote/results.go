package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"

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
}

func newResults() *results {
	return &results{answers: map[int]answer{}, titles: map[int]*genai.GenerateContentResponse{}}
}

// ErrJobError is the error of a request the job failed.
var ErrJobError = errors.New("the batch job failed this request")

func jobError(code int, message string) error {
	if message == "" {
		message = "no reason given"
	}
	return goerr.Wrap(ErrJobError, message, goerr.V("code", code))
}

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
			err = jobError(code, ir.Error.Message)
		} else if ir.Response == nil {
			err = jobError(0, "the job returned no response")
		}
		r.add(ir.Metadata["key"], ir.Response, err)
	}
}

// resultLine is one line of a job's results file.
type resultLine struct {
	Key      string          `json:"key"`
	Response json.RawMessage `json:"response"`
	Error    *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// keyPattern finds the key of a line that is not JSON as a whole.
var keyPattern = regexp.MustCompile(`"key"\s*:\s*"([qt][0-9]+(?:@[0-9]+)?)"`)

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
			r.add(string(m[1]), nil, jobError(0, "the job's result line could not be read: "+err.Error()))
			return
		}
		r.unmatched++
		return
	}
	switch {
	case rl.Error != nil:
		r.add(rl.Key, nil, jobError(rl.Error.Code, rl.Error.Message))
	case len(rl.Response) == 0 || string(rl.Response) == "null":
		r.add(rl.Key, nil, jobError(0, "the job returned no response"))
	default:
		var resp genai.GenerateContentResponse
		if err := json.Unmarshal(rl.Response, &resp); err != nil {
			r.add(rl.Key, nil, jobError(0, "the job's response could not be read: "+err.Error()))
			return
		}
		r.add(rl.Key, &resp, nil)
	}
}
