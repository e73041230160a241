package geminitest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"
)

// Kinds of the Batch API and Files API calls, for FailNext. A request of a batch job, as
// given to the handlers, has Kind KindBatchGenerateContent too.
const (
	KindBatchGenerateContent = "batchGenerateContent"
	KindBatchGet             = "batches.get"
	KindBatchList            = "batches.list"
	KindBatchCancel          = "batches.cancel"
	KindBatchDelete          = "batches.delete"
	KindFileUpload           = "files.upload" // the start of a resumable upload
	KindFileGet              = "files.get"
	KindFileDownload         = "files.download"
	KindFileDelete           = "files.delete"
)

// DefaultBatchPageSize is the number of jobs in a page of batches.list when the request
// sets no pageSize.
const DefaultBatchPageSize = 50

var (
	batchCreatePath = regexp.MustCompile(`^/(?:v1|v1beta|v1alpha)/models/([^/:]+):batchGenerateContent$`)
	batchesPath     = regexp.MustCompile(`^/(?:v1|v1beta|v1alpha)/batches(?:/([^/:]+)(:cancel)?)?$`)
)

// The type URLs the Gemini API puts in a batch operation.
const (
	batchMetadataType = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"
	batchOutputType   = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput"
)

// A BatchRequest is one request of a batch job, as the server received it. The embedded
// Request holds its decoded contents, system instruction, tools...; its Kind is
// KindBatchGenerateContent and its Model the job's model (without "models/").
type BatchRequest struct {
	// Key identifies the request: the "key" of its line for a file source, its
	// Metadata["key"] for inlined requests.
	Key string
	// Metadata is the inlined request's metadata, echoed on its response; nil for a
	// file line.
	Metadata map[string]string
	// Index is the request's position in the input, from 0.
	Index int
	*Request
}

// A Batch is a snapshot of a batch job held by the server.
type Batch struct {
	// Name is the job's resource name, "batches/{id}".
	Name string
	// Model is the model from the create path, without "models/".
	Model       string
	DisplayName string
	State       genai.JobState
	// FileName is the input file ("files/{id}") of a job created from a file; empty for
	// inlined requests.
	FileName string
	// ResultsFile is the results file of a file job, once the job has ended with answers.
	ResultsFile string
	// Requests are the job's requests, in input order.
	Requests []*BatchRequest
	// Header and Body are the create request's.
	Header http.Header
	Body   []byte
	// Deleted reports whether the job was deleted through the API.
	Deleted bool
	// InputURIs and OutputDir are a Vertex AI job's gs:// input and, once it has ended with
	// answers, the directory of its predictions.
	InputURIs []string
	OutputDir string
}

// BatchStats counts the Batch API and Files API calls received, failed ones included,
// except Created and Uploads, which count successes.
type BatchStats struct {
	Created   int64 // batch jobs created
	Gets      int64 // batches.get requests
	Lists     int64 // batches.list requests (one per page)
	Cancels   int64
	Deletes   int64
	Uploads   int64 // uploads finalized
	FileGets  int64
	Downloads int64
}

// batchJob is the server's record of a job. Guarded by Server.bmu.
type batchJob struct {
	name, model, displayName string
	fileName                 string
	header                   http.Header
	body                     []byte
	reqs                     []*BatchRequest
	state                    genai.JobState
	created, updated, ended  time.Time
	handler                  func(*BatchRequest) Reply
	extraLines               []string
	results                  []batchResult // in output order
	resultsFile              string
	deleted                  bool
	vertex                   *vertexJob // a Vertex AI batch prediction job (vertex.go)
}

type batchResult struct {
	req  *BatchRequest
	resp *genai.GenerateContentResponse
	err  *rpcStatus
}

// rpcStatus is google.rpc.Status as the API sends it in a job's output: typed details are
// objects with an "@type". genai.JobError (v1.77.0), which the SDK parses a per-request error
// into, holds details as strings, so Batches.Get fails on such a job exactly as it does on the
// real service's.
type rpcStatus struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Details []map[string]any `json:"details,omitempty"`
}

// debugInfoType is the type of the detail the API attaches to a failed request.
const debugInfoType = "type.googleapis.com/google.rpc.DebugInfo"

// newStatus is the status of a failed request or job: the reply's details (retry info,
// ErrorDetails) or, without any, a DebugInfo detail, as the API attaches one.
func newStatus(e genai.APIError) *rpcStatus {
	st := &rpcStatus{Code: e.Code, Message: e.Message, Details: e.Details}
	if len(st.Details) == 0 {
		st.Details = []map[string]any{{"@type": debugInfoType, "detail": "[ORIGINAL ERROR] generic::" + strings.ToLower(e.Status) + ": " + e.Message}}
	}
	return st
}

func terminal(s genai.JobState) bool {
	switch s {
	case genai.JobStateSucceeded, genai.JobStateFailed, genai.JobStateCancelled, genai.JobStateExpired:
		return true
	}
	return false
}

// batchState is the Gemini API's name of a state: the SDK maps BATCH_STATE_X to
// JOB_STATE_X.
func batchState(s genai.JobState) string {
	return "BATCH_STATE_" + strings.TrimPrefix(string(s), "JOB_STATE_")
}

// WithBatchHandler sets the function that answers the requests of batch jobs that have no
// handler of their own (see SetBatchHandler). Without one, the handler set by WithHandler
// answers them (with Request.Kind KindBatchGenerateContent), else the default answer,
// "ok: " and the last user text. Queued replies are not used for batches. A Reply with a
// Status is a failed request, reported in the job's output as a google.rpc.Status with its
// code, message and typed details (its RetryDelay and ErrorDetails, else a DebugInfo), which
// go-genai v1.77.0's Batches.Get cannot decode, as with the real service; Latency, Chunks and
// Hang do not apply. It is called concurrently, and
// must not call the methods that move jobs.
func WithBatchHandler(h func(*BatchRequest) Reply) Option {
	return func(s *Server) { s.batchHandler = h }
}

// SetBatchHandler sets the function that answers the requests of the job name, instead
// of the server's.
func (s *Server) SetBatchHandler(name string, h func(*BatchRequest) Reply) error {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	j, err := s.job(name)
	if err != nil {
		return err
	}
	j.handler = h
	return nil
}

// AddBatchResultLines adds raw lines, such as one that is not JSON, at the start of the
// results file of the file job name, before its answers. Call it before the job ends; a
// job that ends with no answer has no results file.
func (s *Server) AddBatchResultLines(name string, lines ...string) error {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	j, err := s.job(name)
	if err != nil {
		return err
	}
	if j.fileName == "" && j.vertex == nil {
		return fmt.Errorf("geminitest: %s has inlined requests, no results file", name)
	}
	j.extraLines = append(j.extraLines, lines...)
	return nil
}

// job returns the job name; s.bmu is held.
func (s *Server) job(name string) (*batchJob, error) {
	j := s.jobs[name]
	if j == nil {
		return nil, fmt.Errorf("geminitest: no batch job %q", name)
	}
	return j, nil
}

// Batches returns snapshots of the jobs created so far, deleted ones included, in
// creation order.
func (s *Server) Batches() []Batch {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	out := make([]Batch, 0, len(s.jobOrder))
	for _, name := range s.jobOrder {
		out = append(out, s.jobs[name].snapshot())
	}
	return out
}

// Batch returns a snapshot of the job name.
func (s *Server) Batch(name string) (Batch, bool) {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	j := s.jobs[name]
	if j == nil {
		return Batch{}, false
	}
	return j.snapshot(), true
}

func (j *batchJob) snapshot() Batch {
	b := Batch{
		Name:        j.name,
		Model:       j.model,
		DisplayName: j.displayName,
		State:       j.state,
		FileName:    j.fileName,
		ResultsFile: j.resultsFile,
		Requests:    slices.Clone(j.reqs),
		Header:      j.header.Clone(),
		Body:        j.body,
		Deleted:     j.deleted,
	}
	if j.vertex != nil {
		b.InputURIs, b.OutputDir = slices.Clone(j.vertex.inputURIs), j.vertex.outputDir
	}
	return b
}

// BatchStats returns the counters of the Batch API and Files API calls.
func (s *Server) BatchStats() BatchStats {
	return BatchStats{
		Created:   s.bcount.created.Load(),
		Gets:      s.bcount.gets.Load(),
		Lists:     s.bcount.lists.Load(),
		Cancels:   s.bcount.cancels.Load(),
		Deletes:   s.bcount.deletes.Load(),
		Uploads:   s.bcount.uploads.Load(),
		FileGets:  s.bcount.fileGets.Load(),
		Downloads: s.bcount.downloads.Load(),
	}
}

// AdvanceBatches moves every job that has not ended one step: PENDING to RUNNING, RUNNING
// to SUCCEEDED with every request answered. It returns how many jobs moved. Jobs move only
// when a test says so: the server has no clock of its own.
func (s *Server) AdvanceBatches() int {
	s.bmu.Lock()
	var names []string
	for _, name := range s.jobOrder {
		if j := s.jobs[name]; !j.deleted && !terminal(j.state) {
			names = append(names, name)
		}
	}
	s.bmu.Unlock()
	n := 0
	for _, name := range names {
		if s.AdvanceBatch(name) == nil {
			n++
		}
	}
	return n
}

// AdvanceBatch moves the job name one step: PENDING to RUNNING, RUNNING to SUCCEEDED with
// every request answered.
func (s *Server) AdvanceBatch(name string) error {
	s.bmu.Lock()
	j, err := s.job(name)
	var state genai.JobState
	if err == nil {
		state = j.state
	}
	s.bmu.Unlock()
	if err != nil {
		return err
	}
	switch state {
	case genai.JobStatePending:
		return s.SetBatchState(name, genai.JobStateRunning)
	case genai.JobStateRunning:
		return s.SetBatchState(name, genai.JobStateSucceeded)
	}
	return fmt.Errorf("geminitest: %s has ended (%s)", name, state)
}

// SetBatchState moves the job name to state. PENDING and RUNNING only change the state.
// SUCCEEDED answers every request; FAILED, CANCELLED and EXPIRED answer none (see
// FinishBatch for partial results). A job that has ended does not move again.
func (s *Server) SetBatchState(name string, state genai.JobState) error {
	switch state {
	case genai.JobStatePending, genai.JobStateRunning:
		s.bmu.Lock()
		defer s.bmu.Unlock()
		j, err := s.job(name)
		if err != nil {
			return err
		}
		if terminal(j.state) {
			return fmt.Errorf("geminitest: %s has ended (%s)", name, j.state)
		}
		j.state = state
		j.updated = time.Now()
		return nil
	case genai.JobStateSucceeded:
		return s.FinishBatch(name, state, func(*BatchRequest) bool { return true })
	}
	return s.FinishBatch(name, state, nil)
}

// FinishBatch ends the job name in state (SUCCEEDED, FAILED, CANCELLED or EXPIRED),
// answering the requests for which answered returns true (none when answered is nil),
// which is how a test makes an expired job with partial results. The answers are
// computed now, by the job's handler.
//
// The output lists the answers in reverse input order, so that callers must match them
// by key as they must with the real service, which promises no order.
func (s *Server) FinishBatch(name string, state genai.JobState, answered func(*BatchRequest) bool) error {
	if !terminal(state) {
		return fmt.Errorf("geminitest: %s is not a final state", state)
	}
	s.bmu.Lock()
	j, err := s.job(name)
	if err == nil && terminal(j.state) {
		err = fmt.Errorf("geminitest: %s has ended (%s)", name, j.state)
	}
	var reqs []*BatchRequest
	var h func(*BatchRequest) Reply
	var extra []string
	if err == nil {
		reqs, h, extra = j.reqs, j.handler, slices.Clone(j.extraLines)
	}
	s.bmu.Unlock()
	if err != nil {
		return err
	}

	// The handler is the test's code: run it without the lock.
	var results []batchResult
	if answered != nil {
		for i := len(reqs) - 1; i >= 0; i-- {
			if answered(reqs[i]) {
				results = append(results, s.answerBatch(h, reqs[i]))
			}
		}
	}

	now := time.Now()
	var outputDir string
	if j.vertex != nil && len(results) > 0 {
		if outputDir, err = s.writePredictions(j, results, extra, now); err != nil {
			return err
		}
	}

	s.bmu.Lock()
	defer s.bmu.Unlock()
	if terminal(j.state) { // cancelled through the API meanwhile
		return fmt.Errorf("geminitest: %s has ended (%s)", name, j.state)
	}
	j.finish(state, now)
	j.results = results
	if j.vertex != nil {
		j.vertex.outputDir = outputDir
	}
	if j.fileName != "" && len(results) > 0 {
		f := s.newFile(s.freeFileName("batch", "results"), "", "application/jsonl", genai.FileSourceGenerated, resultsFile(j))
		j.resultsFile = f.name
	}
	return nil
}

// counts are how many of the job's requests were answered, and how many failed.
func (j *batchJob) counts() (succeeded, failed int64) {
	for _, r := range j.results {
		if r.err != nil {
			failed++
		} else {
			succeeded++
		}
	}
	return succeeded, failed
}

func (j *batchJob) finish(state genai.JobState, now time.Time) {
	j.state, j.updated, j.ended = state, now, now
}

// cancel cancels the job through the API; s.bmu is held. Cancelling a job that has ended
// changes nothing, as for any long-running operation.
func (j *batchJob) cancel() {
	if !terminal(j.state) {
		j.finish(genai.JobStateCancelled, time.Now())
	}
}

// answerBatch computes the result of one request.
func (s *Server) answerBatch(h func(*BatchRequest) Reply, r *BatchRequest) batchResult {
	if msg := unpaired(r.Contents); msg != "" {
		bad := Reply{Status: http.StatusBadRequest, ErrorMessage: msg}
		return batchResult{req: r, err: newStatus(bad.apiError())}
	}
	if s.g3 {
		if bad := s.g3Check(r.Request); bad != nil {
			return batchResult{req: r, err: newStatus(bad.apiError())}
		}
	}
	var reply Reply
	switch {
	case h != nil:
		reply = h(r)
	case s.batchHandler != nil:
		reply = s.batchHandler(r)
	case s.handler != nil:
		reply = s.handler(r.Request)
	default:
		reply = Reply{Text: "ok: " + r.LastUserText()}
	}
	if reply.isError() {
		return batchResult{req: r, err: newStatus(reply.apiError())}
	}
	if s.g3 && reply.BlockReason == "" {
		s.g3Shape(r.Request, &reply) // a job's answer has no first byte to wait for
	}
	return batchResult{req: r, resp: reply.responses(r.Request, false)[0]}
}

// resultsFile renders the JSONL results of a file job: the extra lines, then one line per
// answer, {"key", "response"} or {"key", "error"}.
func resultsFile(j *batchJob) []byte {
	var b bytes.Buffer
	for _, l := range j.extraLines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, r := range j.results {
		line := struct {
			Key      string                         `json:"key,omitempty"`
			Response *genai.GenerateContentResponse `json:"response,omitempty"`
			Error    *rpcStatus                     `json:"error,omitempty"`
		}{r.req.Key, r.resp, r.err}
		enc, err := json.Marshal(line)
		if err != nil {
			panic("geminitest: encoding a result line: " + err.Error())
		}
		b.Write(enc)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// The wire shapes of a batch job: a long-running operation whose metadata is the
// GenerateContentBatch. The SDK reads name, metadata.state, metadata.output and the
// times; done, error and response are there as the API sends them, for raw callers.
type (
	batchOperation struct {
		Name     string        `json:"name"`
		Metadata batchMetadata `json:"metadata"`
		Done     bool          `json:"done,omitempty"`
		Error    *rpcStatus    `json:"error,omitempty"`
		Response *typedOutput  `json:"response,omitempty"`
	}
	batchMetadata struct {
		Type        string       `json:"@type"`
		Name        string       `json:"name"`
		Model       string       `json:"model"`
		DisplayName string       `json:"displayName,omitempty"`
		CreateTime  string       `json:"createTime"`
		UpdateTime  string       `json:"updateTime"`
		EndTime     string       `json:"endTime,omitempty"`
		BatchStats  batchCounts  `json:"batchStats"`
		State       string       `json:"state"`
		Output      *batchOutput `json:"output,omitempty"`
	}
	// Counts are int64, which JSON-mapped protos carry as strings.
	batchCounts struct {
		RequestCount           int64 `json:"requestCount,string"`
		SuccessfulRequestCount int64 `json:"successfulRequestCount,string,omitempty"`
		FailedRequestCount     int64 `json:"failedRequestCount,string,omitempty"`
		PendingRequestCount    int64 `json:"pendingRequestCount,string,omitempty"`
	}
	batchOutput struct {
		ResponsesFile    string            `json:"responsesFile,omitempty"`
		InlinedResponses *inlinedResponses `json:"inlinedResponses,omitempty"`
	}
	typedOutput struct {
		Type string `json:"@type"`
		batchOutput
	}
	inlinedResponses struct {
		InlinedResponses []inlinedResponse `json:"inlinedResponses"`
	}
	inlinedResponse struct {
		Response *genai.GenerateContentResponse `json:"response,omitempty"`
		Error    *rpcStatus                     `json:"error,omitempty"`
		Metadata map[string]string              `json:"metadata,omitempty"`
	}
)

// jobFailed is the error of a job that FAILED: INTERNAL, with a typed detail.
func jobFailed() *rpcStatus {
	return newStatus(genai.APIError{Code: 13, Message: "Batch failed.", Status: "INTERNAL"})
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// operation renders the job; s.bmu is held.
func (j *batchJob) operation() batchOperation {
	op := batchOperation{
		Name: j.name,
		Metadata: batchMetadata{
			Type:        batchMetadataType,
			Name:        j.name,
			Model:       "models/" + j.model,
			DisplayName: j.displayName,
			CreateTime:  timestamp(j.created),
			UpdateTime:  timestamp(j.updated),
			State:       batchState(j.state),
		},
	}
	st := &op.Metadata.BatchStats
	st.RequestCount = int64(len(j.reqs))
	st.SuccessfulRequestCount, st.FailedRequestCount = j.counts()
	if !terminal(j.state) {
		st.PendingRequestCount = st.RequestCount
		return op
	}
	op.Done = true
	op.Metadata.EndTime = timestamp(j.ended)
	if j.state == genai.JobStateFailed {
		op.Error = jobFailed()
	}
	var out *batchOutput
	switch {
	case j.resultsFile != "":
		out = &batchOutput{ResponsesFile: j.resultsFile}
	case j.fileName == "" && len(j.results) > 0:
		rs := make([]inlinedResponse, len(j.results))
		for i, r := range j.results {
			rs[i] = inlinedResponse{Response: r.resp, Error: r.err, Metadata: r.req.Metadata}
		}
		out = &batchOutput{InlinedResponses: &inlinedResponses{rs}}
	}
	if out != nil {
		op.Metadata.Output = out
		op.Response = &typedOutput{Type: batchOutputType, batchOutput: *out}
	}
	return op
}

// The create request's body, as the SDK sends it for the Gemini API.
type batchCreateBody struct {
	Batch *struct {
		DisplayName string `json:"displayName"`
		InputConfig *struct {
			FileName string `json:"fileName"`
			Requests *struct {
				Requests []struct {
					Request  json.RawMessage   `json:"request"`
					Metadata map[string]string `json:"metadata"`
				} `json:"requests"`
			} `json:"requests"`
		} `json:"inputConfig"`
	} `json:"batch"`
}

// fileLine is one line of a batch input file.
type fileLine struct {
	Key     string          `json:"key"`
	Request json.RawMessage `json:"request"`
}

func badRequest(w http.ResponseWriter, msg string) {
	writeError(w, &Reply{Status: http.StatusBadRequest, ErrorMessage: msg})
}

// serveBatches answers the Batch API paths (and Vertex AI's, vertex.go); it reports false for
// any other path.
func (s *Server) serveBatches(w http.ResponseWriter, r *http.Request) bool {
	if s.serveVertexBatches(w, r) {
		return true
	}
	if m := batchCreatePath.FindStringSubmatch(r.URL.Path); m != nil && r.Method == http.MethodPost {
		if s.refuse(w, r, KindBatchGenerateContent) {
			return true
		}
		s.createBatch(w, r, m[1])
		return true
	}
	m := batchesPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		return false
	}
	id, cancel := m[1], m[2] != ""
	var kind string
	switch {
	case id == "" && r.Method == http.MethodGet:
		kind = KindBatchList
		s.bcount.lists.Add(1)
	case id != "" && cancel && r.Method == http.MethodPost:
		kind = KindBatchCancel
		s.bcount.cancels.Add(1)
	case id != "" && !cancel && r.Method == http.MethodGet:
		kind = KindBatchGet
		s.bcount.gets.Add(1)
	case id != "" && !cancel && r.Method == http.MethodDelete:
		kind = KindBatchDelete
		s.bcount.deletes.Add(1)
	default:
		return false
	}
	if s.refuse(w, r, kind) {
		return true
	}
	if kind == KindBatchList {
		s.listBatches(w, r)
		return true
	}
	s.answerJob(w, kind, "batches/"+id, false)
	return true
}

// answerJob answers a get, cancel or delete of the job stored under name: a Gemini API
// batch, or a Vertex AI batch prediction job, each with its backend's resource and 404.
func (s *Server) answerJob(w http.ResponseWriter, kind, name string, vertex bool) {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	j := s.jobs[name]
	if j == nil || j.deleted || vertex && j.vertex == nil {
		msg := "Requested entity was not found."
		if vertex {
			msg = "The BatchPredictionJob does not exist."
		}
		writeError(w, &Reply{Status: http.StatusNotFound, ErrorMessage: msg})
		return
	}
	switch kind {
	case KindBatchGet:
		if vertex {
			writeJSON(w, http.StatusOK, j.vertexResource())
		} else {
			writeJSON(w, http.StatusOK, j.operation())
		}
	case KindBatchCancel:
		j.cancel()
		writeJSON(w, http.StatusOK, struct{}{})
	case KindBatchDelete:
		// Deleting forgets the job; it does not cancel it (the API's words), which
		// makes no difference here.
		j.deleted = true
		writeJSON(w, http.StatusOK, struct{}{})
	}
}

// refuse answers a request without an API key, or one that FailNext scripted, and
// reports whether it did.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, kind string) bool {
	if r.Header.Get("x-goog-api-key") == "" && r.URL.Query().Get("key") == "" {
		writeError(w, &Reply{Status: http.StatusForbidden, ErrorMessage: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."})
		return true
	}
	if f := s.takeFailure(kind); f != nil {
		writeError(w, f)
		return true
	}
	return false
}

func (s *Server) createBatch(w http.ResponseWriter, r *http.Request, model string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var cb batchCreateBody
	if err := json.Unmarshal(body, &cb); err != nil {
		badRequest(w, "Invalid JSON payload received. "+err.Error())
		return
	}
	b := cb.Batch
	switch {
	case b == nil:
		badRequest(w, "* BatchGenerateContentRequest.batch: batch is required")
		return
	case b.DisplayName == "":
		// Required by the API; the Go SDK sends it only when CreateBatchJobConfig has one.
		badRequest(w, "* BatchGenerateContentRequest.batch.display_name: display_name is required")
		return
	case b.InputConfig == nil || b.InputConfig.FileName == "" && b.InputConfig.Requests == nil:
		badRequest(w, "* BatchGenerateContentRequest.batch.input_config: input_config is required")
		return
	case b.InputConfig.FileName != "" && b.InputConfig.Requests != nil:
		badRequest(w, "* BatchGenerateContentRequest.batch.input_config: only one of file_name and requests may be set")
		return
	}

	if s.g3 && !s.serves(model, KindBatchGenerateContent) {
		writeError(w, notFound(model, KindBatchGenerateContent))
		return
	}

	j := newJob(r, body, model, b.DisplayName)

	if fn := b.InputConfig.FileName; fn != "" {
		s.bmu.Lock()
		f := s.files[fn]
		var data []byte
		if f != nil {
			data = f.data
		}
		s.bmu.Unlock()
		if f == nil {
			writeError(w, &Reply{Status: http.StatusForbidden, ErrorMessage: "You do not have permission to access the File " + strings.TrimPrefix(fn, "files/") + " or it may not exist."})
			return
		}
		j.fileName = fn
		msg := eachLine(data, func(n int, line []byte) string {
			var l fileLine
			if err := json.Unmarshal(line, &l); err != nil {
				return fmt.Sprintf("Invalid input file %s: line %d: %v", fn, n, err)
			}
			br, msg := j.newRequest(l.Request, r.URL.Path)
			if msg != "" {
				return fmt.Sprintf("Invalid input file %s: line %d: %s", fn, n, msg)
			}
			br.Key = l.Key
			j.reqs = append(j.reqs, br)
			return ""
		})
		if msg != "" {
			badRequest(w, msg)
			return
		}
		if len(j.reqs) == 0 {
			badRequest(w, "Invalid input file "+fn+": no requests")
			return
		}
	} else {
		rs := b.InputConfig.Requests.Requests
		if len(rs) == 0 {
			badRequest(w, "* BatchGenerateContentRequest.batch.input_config.requests.requests: requests is required")
			return
		}
		for i, q := range rs {
			br, msg := j.newRequest(q.Request, r.URL.Path)
			if msg != "" {
				badRequest(w, fmt.Sprintf("* BatchGenerateContentRequest.batch.input_config.requests.requests[%d].request: %s", i, msg))
				return
			}
			br.Metadata = q.Metadata
			br.Key = q.Metadata["key"]
			j.reqs = append(j.reqs, br)
		}
	}

	writeJSON(w, http.StatusOK, s.register(j, func(n int) string { return "batches/fakebatch" + strconv.Itoa(n) },
		func() any { return j.operation() }))
}

// newJob is a job being created by the request r (its body read into body), PENDING, without
// requests yet.
func newJob(r *http.Request, body []byte, model, displayName string) *batchJob {
	now := time.Now()
	return &batchJob{model: model, displayName: displayName, header: r.Header.Clone(), body: body,
		state: genai.JobStatePending, created: now, updated: now}
}

// register names a new job from the server's next job number and keeps it; it returns the
// job as render gives it, rendered under s.bmu.
func (s *Server) register(j *batchJob, name func(n int) string, render func() any) any {
	s.bmu.Lock()
	s.nextJob++
	j.name = name(s.nextJob)
	s.jobs[j.name] = j
	s.jobOrder = append(s.jobOrder, j.name)
	out := render()
	s.bmu.Unlock()
	s.bcount.created.Add(1)
	return out
}

// newRequest decodes the next request of the job being created; a message says why it is
// refused.
func (j *batchJob) newRequest(raw json.RawMessage, path string) (*BatchRequest, string) {
	i := len(j.reqs)
	req := &Request{Seq: int64(i + 1), Time: j.created, Kind: KindBatchGenerateContent, Model: j.model, Path: path, Header: j.header, Body: raw}
	if err := req.decode(); err != nil {
		return nil, "Invalid JSON payload received. " + err.Error()
	}
	if len(req.Contents) == 0 {
		return nil, "contents is not specified"
	}
	return &BatchRequest{Index: i, Request: req}, ""
}

// eachLine calls fn with each line of data that is not blank and its number from 1, until fn
// returns a message, which it returns.
func eachLine(data []byte, fn func(n int, line []byte) string) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if msg := fn(n, sc.Bytes()); msg != "" {
			return msg
		}
	}
	return ""
}

// listBatches answers a page of jobs, in creation order. The page token is the index of
// the page's first job, opaque to callers.
func (s *Server) listBatches(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := DefaultBatchPageSize
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			badRequest(w, "Invalid value at 'page_size' (TYPE_INT32), \""+v+"\"")
			return
		}
		if n > 0 {
			size = n
		}
	}
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(b), "page:"))
		if err != nil || err2 != nil || !strings.HasPrefix(string(b), "page:") || n < 0 {
			badRequest(w, "Invalid page token.")
			return
		}
		start = n
	}

	s.bmu.Lock()
	defer s.bmu.Unlock()
	var live []*batchJob
	for _, name := range s.jobOrder {
		if j := s.jobs[name]; !j.deleted && j.vertex == nil {
			live = append(live, j)
		}
	}
	resp := struct {
		Operations    []batchOperation `json:"operations,omitempty"`
		NextPageToken string           `json:"nextPageToken,omitempty"`
	}{}
	end := min(start+size, len(live))
	for i := start; i < end; i++ {
		resp.Operations = append(resp.Operations, live[i].operation())
	}
	if end < len(live) {
		resp.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte("page:" + strconv.Itoa(end)))
	}
	writeJSON(w, http.StatusOK, resp)
}
