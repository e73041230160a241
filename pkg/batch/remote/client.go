package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/httptransport"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"
)

// NewClient creates the genai client of remote batches: the SDK's own, whose HTTP client
// reads a job whatever its errors' details hold (see tolerantTransport). On Vertex AI without
// an API key it authenticates as the SDK would, with cc.Credentials or else Application
// Default Credentials. cc is not modified.
func NewClient(ctx context.Context, cc *genai.ClientConfig) (*genai.Client, error) {
	c := *cc
	hc := &http.Client{}
	if c.HTTPClient != nil {
		*hc = *c.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &tolerantTransport{base: base}
	if c.Backend == genai.BackendVertexAI && c.APIKey == "" {
		creds := c.Credentials
		if creds == nil {
			var err error
			creds, err = credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}})
			if err != nil {
				return nil, goerr.Wrap(err, "failed to find Google Cloud credentials for Vertex AI (Application Default Credentials)")
			}
		}
		if err := httptransport.AddAuthorizationMiddleware(hc, creds); err != nil {
			return nil, goerr.Wrap(err, "failed to set up Vertex AI authentication")
		}
		if q, err := creds.QuotaProjectID(ctx); err == nil && q != "" {
			c.HTTPOptions.Headers = c.HTTPOptions.Headers.Clone()
			if c.HTTPOptions.Headers == nil {
				c.HTTPOptions.Headers = http.Header{}
			}
			c.HTTPOptions.Headers.Set("X-Goog-User-Project", q)
		}
		// The HTTP client carries them: the SDK would otherwise warn about an API key in the
		// environment, and never reads them itself when given a client.
		c.Credentials = nil
	}
	c.HTTPClient = hc
	client, err := genai.NewClient(ctx, &c)
	if err != nil {
		// The configuration may hold an API key: never print it.
		return nil, goerr.Wrap(err, "failed to create the Gemini client", goerr.V("backend", c.Backend.String()))
	}
	return client, nil
}

// tolerantTransport makes the Batch API's answers readable by go-genai v1.77.0. The SDK
// decodes a job's per-request errors (and a Vertex AI job's own error) into genai.JobError,
// whose Details is []string, while the API sends google.rpc.Status details as objects
// ({"@type": "type.googleapis.com/google.rpc.DebugInfo", ...}): Batches.Get of a job in which a
// single request failed that way fails as a whole, and the job could never be collected. Each
// such detail is rewritten as its JSON text, so nothing is lost; everything else is the SDK's
// own decoding.
type tolerantTransport struct{ base http.RoundTripper }

func (t *tolerantTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !jobPath(req.URL.Path) {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read the Batch API's answer")
	}
	if fixed, ok := stringifyDetails(body); ok {
		body = fixed
		resp.Header.Del("Content-Length")
	}
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// jobPath reports whether path is a batch job's (or a list of them), on either backend.
func jobPath(path string) bool {
	return strings.Contains(path, "/batches") || strings.Contains(path, "/batchPredictionJobs")
}

// detailsKey is how a status's details appear in JSON; a string value equal to it is escaped
// differently, so a body without it has no details at all.
var detailsKey = []byte(`"details"`)

// stringifyDetails rewrites the details of every google.rpc.Status in body (an object with
// "details" beside "code" or "message") as strings, and reports whether it changed anything.
func stringifyDetails(body []byte) ([]byte, bool) {
	if !bytes.Contains(body, detailsKey) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil || !stringifyIn(root) {
		return nil, false
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		return nil, false
	}
	return out.Bytes(), true
}

func stringifyIn(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		if ds, ok := v["details"].([]any); ok && (v["code"] != nil || v["message"] != nil) {
			for i, d := range ds {
				if _, ok := d.(string); ok {
					continue
				}
				if b, err := json.Marshal(d); err == nil {
					ds[i], changed = string(b), true
				}
			}
		}
		for _, e := range v {
			changed = stringifyIn(e) || changed
		}
	case []any:
		for _, e := range v {
			changed = stringifyIn(e) || changed
		}
	}
	return changed
}

// grpcCodes are google.rpc.Code values by name, and the HTTP status each maps to.
var grpcCodes = []struct {
	name string
	http int
}{
	0: {"OK", 200}, 1: {"CANCELLED", 499}, 2: {"UNKNOWN", 500}, 3: {"INVALID_ARGUMENT", 400},
	4: {"DEADLINE_EXCEEDED", 504}, 5: {"NOT_FOUND", 404}, 6: {"ALREADY_EXISTS", 409},
	7: {"PERMISSION_DENIED", 403}, 8: {"RESOURCE_EXHAUSTED", 429}, 9: {"FAILED_PRECONDITION", 400},
	10: {"ABORTED", 409}, 11: {"OUT_OF_RANGE", 400}, 12: {"UNIMPLEMENTED", 501}, 13: {"INTERNAL", 500},
	14: {"UNAVAILABLE", 503}, 15: {"DATA_LOSS", 500}, 16: {"UNAUTHENTICATED", 401},
}

// httpStatusNames are the canonical status names of the HTTP codes the API answers with.
var httpStatusNames = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED",
	503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

// apiError is a failed request's google.rpc.Status as the API error a direct call would have
// met: its code as an HTTP status (a status carries either that or a google.rpc.Code), the
// canonical name of the code, the message and the details.
func apiError(code int, message, status string, details []map[string]any) genai.APIError {
	if code > 0 && code < len(grpcCodes) {
		if status == "" {
			status = grpcCodes[code].name
		}
		code = grpcCodes[code].http
	}
	if status == "" {
		status = httpStatusNames[code]
	}
	if message == "" {
		message = "no reason given"
	}
	return genai.APIError{Code: code, Message: message, Status: status, Details: details}
}

// detailMaps decodes details kept as JSON texts (see tolerantTransport); a text that is not an
// object is kept as {"detail": text}.
func detailMaps(ds []string) []map[string]any {
	if len(ds) == 0 {
		return nil
	}
	out := make([]map[string]any, 0, len(ds))
	for _, d := range ds {
		var m map[string]any
		if json.Unmarshal([]byte(d), &m) != nil || m == nil {
			m = map[string]any{"detail": d}
		}
		out = append(out, m)
	}
	return out
}

// vertexStatusError reads the status of a prediction Vertex AI failed, such as
// `Bad Request: {"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT"}}`: the
// embedded error when there is one, else the status text as the message.
func vertexStatusError(s string) genai.APIError {
	if i := strings.IndexByte(s, '{'); i >= 0 {
		var body struct {
			Error *struct {
				Code    json.Number      `json:"code"`
				Message string           `json:"message"`
				Status  string           `json:"status"`
				Details []map[string]any `json:"details"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(s[i:]), &body) == nil && body.Error != nil {
			code, _ := strconv.Atoi(body.Error.Code.String())
			return apiError(code, body.Error.Message, body.Error.Status, body.Error.Details)
		}
	}
	return apiError(0, strings.TrimSpace(s), "", nil)
}
