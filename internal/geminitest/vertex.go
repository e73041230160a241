package geminitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"
)

// Objects is the Cloud Storage that Vertex AI batch prediction jobs read their input from and
// write their predictions to: in tests, a fake-gcs-server (testenv.GCSObjects adapts a
// storage client). Names are object names within bucket.
type Objects interface {
	ReadObject(ctx context.Context, bucket, name string) ([]byte, error)
	WriteObject(ctx context.Context, bucket, name string, data []byte) error
}

// VertexBatches configures the server's Vertex AI batch prediction jobs (WithVertexBatches).
type VertexBatches struct {
	// Objects holds the jobs' gs:// input and output.
	Objects Objects
	// KeepKey copies an input line's "key" into its prediction line. Whether Vertex AI passes
	// such a field through is not documented, so by default the server drops it: a caller
	// must match predictions to requests by what the echoed request holds.
	KeepKey bool
	// DropLabels echoes each request without its "labels", leaving a caller nothing but the
	// request's contents to match a prediction by.
	DropLabels bool
}

// WithVertexBatches serves Vertex AI's batch prediction jobs, as the SDK uses them with
// genai.BackendVertexAI:
//
//	POST /v1beta1/projects/{p}/locations/{l}/batchPredictionJobs               Batches.Create
//	GET  /v1beta1/projects/{p}/locations/{l}/batchPredictionJobs/{id}          Batches.Get
//	POST /v1beta1/projects/{p}/locations/{l}/batchPredictionJobs/{id}:cancel   Batches.Cancel
//
// (v1 too). The create request names a JSONL input of {"request": {...}} lines (other fields
// allowed) in gs://, which the server reads through v.Objects at creation, and a gs://
// output prefix. A job that ends with answers writes
// {prefix}/prediction-model-{TIMESTAMP}/predictions.jsonl, one line per answered request,
// {"status": "", "processed_time", "request", "response"}, or, for a failed request, no
// response and a status such as `Bad Request: {"error": {...}}`, and names that directory in
// outputInfo.gcsOutputDirectory. A job that FAILED has an error with typed details. Jobs move
// as the Gemini API's do (AdvanceBatches, SetBatchState, FinishBatch); their requests are
// answered by the same handlers, with BatchRequest.Key the line's "key" when it has one.
// Calls need an Authorization bearer token or an API key (express mode), else 401.
func WithVertexBatches(v VertexBatches) Option {
	return func(s *Server) { s.vertex = &v }
}

var vertexBatchPath = regexp.MustCompile(`^/(?:v1|v1beta1)/(?:projects/([^/]+)/locations/([^/]+)/)?batchPredictionJobs(?:/([^/:]+)(:cancel)?)?$`)

// vertexJob is what a Vertex AI job adds to a batchJob; set at creation, never modified but
// for outputDir (under Server.bmu).
type vertexJob struct {
	inputURIs    []string
	outputPrefix string
	outputDir    string
	// requests are the input lines' raw "request" values, as the predictions echo them.
	requests []json.RawMessage
}

// The create request's body, as the SDK sends it for Vertex AI.
type vertexCreateBody struct {
	DisplayName string `json:"displayName"`
	Model       string `json:"model"`
	InputConfig *struct {
		InstancesFormat string `json:"instancesFormat"`
		GCSSource       *struct {
			URIs []string `json:"uris"`
		} `json:"gcsSource"`
	} `json:"inputConfig"`
	OutputConfig *struct {
		PredictionsFormat string `json:"predictionsFormat"`
		GCSDestination    *struct {
			OutputURIPrefix string `json:"outputUriPrefix"`
		} `json:"gcsDestination"`
	} `json:"outputConfig"`
}

// splitGCSURI splits gs://bucket/name.
func splitGCSURI(uri string) (bucket, name string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "gs://")
	if !ok {
		return "", "", false
	}
	bucket, name, ok = strings.Cut(rest, "/")
	return bucket, name, ok && bucket != "" && name != ""
}

// serveVertexBatches answers the Vertex AI batch paths; it reports false for any other path.
func (s *Server) serveVertexBatches(w http.ResponseWriter, r *http.Request) bool {
	m := vertexBatchPath.FindStringSubmatch(r.URL.Path)
	if m == nil || s.vertex == nil {
		return false
	}
	project, location, id, cancel := m[1], m[2], m[3], m[4] != ""
	var kind string
	switch {
	case id == "" && r.Method == http.MethodPost:
		kind = KindBatchGenerateContent
	case id != "" && cancel && r.Method == http.MethodPost:
		kind = KindBatchCancel
		s.bcount.cancels.Add(1)
	case id != "" && !cancel && r.Method == http.MethodGet:
		kind = KindBatchGet
		s.bcount.gets.Add(1)
	default:
		return false
	}
	if r.Header.Get("x-goog-api-key") == "" && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		writeError(w, &Reply{Status: http.StatusUnauthorized, ErrorMessage: "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."})
		return true
	}
	if f := s.takeFailure(kind); f != nil {
		writeError(w, f)
		return true
	}
	if project == "" {
		project, location = "express", "global"
	}
	if kind == KindBatchGenerateContent {
		s.createVertexBatch(w, r, project, location)
		return true
	}
	s.answerJob(w, kind, "projects/"+project+"/locations/"+location+"/batchPredictionJobs/"+id, true)
	return true
}

func (s *Server) createVertexBatch(w http.ResponseWriter, r *http.Request, project, location string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var cb vertexCreateBody
	if err := json.Unmarshal(body, &cb); err != nil {
		badRequest(w, "Invalid JSON payload received. "+err.Error())
		return
	}
	model, ok := strings.CutPrefix(cb.Model, "publishers/google/models/")
	switch {
	case cb.DisplayName == "":
		badRequest(w, "List of found errors:\t1.Field: batch_prediction_job.display_name; Message: Required field is not set.")
		return
	case !ok || model == "":
		badRequest(w, "List of found errors:\t1.Field: batch_prediction_job.model; Message: Invalid model "+strconv.Quote(cb.Model)+".")
		return
	case cb.InputConfig == nil || cb.InputConfig.GCSSource == nil || len(cb.InputConfig.GCSSource.URIs) == 0:
		badRequest(w, "List of found errors:\t1.Field: batch_prediction_job.input_config; Message: Required field is not set.")
		return
	case cb.InputConfig.InstancesFormat != "jsonl":
		badRequest(w, "Unsupported instances format "+strconv.Quote(cb.InputConfig.InstancesFormat)+"; this server takes jsonl.")
		return
	case cb.OutputConfig == nil || cb.OutputConfig.GCSDestination == nil || cb.OutputConfig.GCSDestination.OutputURIPrefix == "":
		badRequest(w, "List of found errors:\t1.Field: batch_prediction_job.output_config; Message: Required field is not set.")
		return
	}
	if _, _, ok := splitGCSURI(strings.TrimSuffix(cb.OutputConfig.GCSDestination.OutputURIPrefix, "/") + "/x"); !ok {
		badRequest(w, "Invalid output URI prefix "+strconv.Quote(cb.OutputConfig.GCSDestination.OutputURIPrefix)+".")
		return
	}

	if s.g3 && !s.serves(model, KindBatchGenerateContent) {
		writeError(w, &Reply{Status: http.StatusNotFound, ErrorMessage: "Publisher Model `projects/" + project + "/locations/" + location +
			"/publishers/google/models/" + model + "` was not found or your project does not have access to it. Please ensure you are using a valid model version."})
		return
	}

	j := newJob(r, body, model, cb.DisplayName)
	j.vertex = &vertexJob{
		inputURIs:    cb.InputConfig.GCSSource.URIs,
		outputPrefix: strings.TrimSuffix(cb.OutputConfig.GCSDestination.OutputURIPrefix, "/"),
	}
	for _, uri := range cb.InputConfig.GCSSource.URIs {
		bucket, obj, ok := splitGCSURI(uri)
		if !ok {
			badRequest(w, "Invalid input URI "+strconv.Quote(uri)+".")
			return
		}
		data, err := s.vertex.Objects.ReadObject(r.Context(), bucket, obj)
		if err != nil {
			badRequest(w, "Failed to read the input "+uri+": "+err.Error())
			return
		}
		if msg := j.addVertexLines(uri, data, r.URL.Path); msg != "" {
			badRequest(w, msg)
			return
		}
	}
	if len(j.reqs) == 0 {
		badRequest(w, "The input has no instances.")
		return
	}

	writeJSON(w, http.StatusOK, s.register(j, func(n int) string {
		return fmt.Sprintf("projects/%s/locations/%s/batchPredictionJobs/%d", project, location, 7000000000+n)
	}, func() any { return j.vertexResource() }))
}

// addVertexLines takes the requests of one input file; a message says why it is refused.
func (j *batchJob) addVertexLines(uri string, data []byte, path string) string {
	return eachLine(data, func(n int, line []byte) string {
		var l struct {
			Key     any             `json:"key"`
			Request json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(line, &l); err != nil || len(l.Request) == 0 {
			return fmt.Sprintf("Invalid input %s: line %d has no request", uri, n)
		}
		br, msg := j.newRequest(bytes.Clone(l.Request), path)
		if msg != "" {
			return fmt.Sprintf("Invalid input %s: line %d: %s", uri, n, msg)
		}
		if k, ok := l.Key.(string); ok {
			br.Key = k
		}
		j.reqs = append(j.reqs, br)
		j.vertex.requests = append(j.vertex.requests, br.Body)
		return ""
	})
}

// The wire shape of a Vertex AI BatchPredictionJob.
type (
	vertexResource struct {
		Name            string             `json:"name"`
		DisplayName     string             `json:"displayName"`
		Model           string             `json:"model"`
		InputConfig     vertexInputConfig  `json:"inputConfig"`
		OutputConfig    vertexOutputConfig `json:"outputConfig"`
		State           string             `json:"state"`
		Error           *rpcStatus         `json:"error,omitempty"`
		CreateTime      string             `json:"createTime"`
		StartTime       string             `json:"startTime,omitempty"`
		EndTime         string             `json:"endTime,omitempty"`
		UpdateTime      string             `json:"updateTime"`
		CompletionStats *vertexStats       `json:"completionStats,omitempty"`
		OutputInfo      *vertexOutputInfo  `json:"outputInfo,omitempty"`
	}
	vertexInputConfig struct {
		InstancesFormat string `json:"instancesFormat"`
		GCSSource       struct {
			URIs []string `json:"uris"`
		} `json:"gcsSource"`
	}
	vertexOutputConfig struct {
		PredictionsFormat string `json:"predictionsFormat"`
		GCSDestination    struct {
			OutputURIPrefix string `json:"outputUriPrefix"`
		} `json:"gcsDestination"`
	}
	vertexStats struct {
		SuccessfulCount int64 `json:"successfulCount,string"`
		FailedCount     int64 `json:"failedCount,string"`
		IncompleteCount int64 `json:"incompleteCount,string"`
	}
	vertexOutputInfo struct {
		GCSOutputDirectory string `json:"gcsOutputDirectory"`
	}
)

// vertexResource renders the job; s.bmu is held.
func (j *batchJob) vertexResource() vertexResource {
	res := vertexResource{
		Name:        j.name,
		DisplayName: j.displayName,
		Model:       "publishers/google/models/" + j.model,
		State:       string(j.state),
		CreateTime:  timestamp(j.created),
		UpdateTime:  timestamp(j.updated),
	}
	res.InputConfig.InstancesFormat = "jsonl"
	res.InputConfig.GCSSource.URIs = j.vertex.inputURIs
	res.OutputConfig.PredictionsFormat = "jsonl"
	res.OutputConfig.GCSDestination.OutputURIPrefix = j.vertex.outputPrefix
	if j.state != genai.JobStatePending {
		res.StartTime = timestamp(j.created)
	}
	if !terminal(j.state) {
		return res
	}
	res.EndTime = timestamp(j.ended)
	st := &vertexStats{}
	st.SuccessfulCount, st.FailedCount = j.counts()
	st.IncompleteCount = int64(len(j.reqs)) - st.SuccessfulCount - st.FailedCount
	res.CompletionStats = st
	if j.state == genai.JobStateFailed {
		res.Error = jobFailed()
	}
	if j.vertex.outputDir != "" {
		res.OutputInfo = &vertexOutputInfo{GCSOutputDirectory: j.vertex.outputDir}
	}
	return res
}

// predictionLine is a line of predictions.jsonl.
type predictionLine struct {
	Key           string                         `json:"key,omitempty"`
	Status        string                         `json:"status"`
	ProcessedTime string                         `json:"processed_time"`
	Request       json.RawMessage                `json:"request"`
	Response      *genai.GenerateContentResponse `json:"response,omitempty"`
}

// writePredictions writes the predictions of a Vertex AI job's results and returns the
// directory they went to. It runs without s.bmu: j.vertex's input fields never change.
func (s *Server) writePredictions(j *batchJob, results []batchResult, extra []string, now time.Time) (string, error) {
	var b bytes.Buffer
	for _, l := range extra {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, r := range results {
		l := predictionLine{ProcessedTime: timestamp(now), Request: j.vertex.requests[r.req.Index], Response: r.resp}
		if s.vertex.KeepKey {
			l.Key = r.req.Key
		}
		if s.vertex.DropLabels {
			l.Request = withoutLabels(l.Request)
		}
		if r.err != nil {
			l.Status = vertexStatus(r.err)
		}
		enc, err := json.Marshal(l)
		if err != nil {
			return "", err
		}
		b.Write(enc)
		b.WriteByte('\n')
	}
	dir := j.vertex.outputPrefix + "/prediction-model-" + now.UTC().Format("2006-01-02T15:04:05.000000Z")
	bucket, name, _ := splitGCSURI(dir + "/predictions.jsonl")
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	if err := s.vertex.Objects.WriteObject(ctx, bucket, name, b.Bytes()); err != nil {
		return "", fmt.Errorf("geminitest: writing the predictions of %s: %w", j.name, err)
	}
	return dir, nil
}

// vertexStatus is a failed prediction's status: the HTTP reason, then the error as JSON.
func vertexStatus(st *rpcStatus) string {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": st.Code, "message": st.Message, "status": canonicalStatus(st.Code)}})
	reason := http.StatusText(st.Code)
	if reason == "" {
		reason = "Error"
	}
	return reason + ": " + string(body)
}

func withoutLabels(req json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(req, &m) != nil {
		return req
	}
	delete(m, "labels")
	out, err := json.Marshal(m)
	if err != nil {
		return req
	}
	return out
}
