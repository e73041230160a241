package geminitest

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// ModelInfo is a model the server knows: what the model list reports of it and, in Gemini 3
// mode (WithGemini3), how it thinks and whether it still answers.
type ModelInfo struct {
	// Name is the model's ID, without "models/" (e.g. "gemini-3.8-flash").
	Name        string
	DisplayName string
	// InputTokenLimit and OutputTokenLimit are reported by the list.
	InputTokenLimit, OutputTokenLimit int32
	// Methods are the supported generation methods ("generateContent", "countTokens",
	// "embedContent", ...); the list reports them and Gemini 3 mode refuses the others.
	Methods []string
	// Levels are the thinking levels the model accepts, lowest first; DefaultLevel is the one
	// it uses when the request names none. Budget models (Gemini 2.5) have none and take
	// thinkingBudget instead.
	Levels       []genai.ThinkingLevel
	DefaultLevel genai.ThinkingLevel
	Budget       bool
	// Thinking is what the list reports as the model's thinking support.
	Thinking bool
	// Retired models are not listed and answer 404 NOT_FOUND in Gemini 3 mode.
	Retired bool
}

var (
	chatMethods = []string{"generateContent", "countTokens", "createCachedContent", "batchGenerateContent"}
	g3Flash     = []genai.ThinkingLevel{genai.ThinkingLevelLow, genai.ThinkingLevelMedium, genai.ThinkingLevelHigh}
	g3Lite      = []genai.ThinkingLevel{genai.ThinkingLevelMinimal, genai.ThinkingLevelLow, genai.ThinkingLevelMedium, genai.ThinkingLevelHigh}
)

// DefaultModels is the lineup the server knows unless WithModels replaces it: the Gemini 3
// models served in late 2026 (gemini-3.8-flash, 3.7-flash, 3.6-flash: LOW, MEDIUM, HIGH,
// default MEDIUM; 3.5-flash-lite, 3.1-flash-lite: MINIMAL to HIGH, default MINIMAL;
// 3.1-pro-preview: LOW, MEDIUM, HIGH, default HIGH), the embedding model, and the retired
// Gemini 2.x models.
func DefaultModels() []ModelInfo {
	flash := func(name, display string) ModelInfo {
		return ModelInfo{Name: name, DisplayName: display, InputTokenLimit: 1048576, OutputTokenLimit: 65536, Methods: chatMethods,
			Levels: g3Flash, DefaultLevel: genai.ThinkingLevelMedium, Thinking: true}
	}
	lite := func(name, display string) ModelInfo {
		return ModelInfo{Name: name, DisplayName: display, InputTokenLimit: 1048576, OutputTokenLimit: 65536, Methods: chatMethods,
			Levels: g3Lite, DefaultLevel: genai.ThinkingLevelMinimal, Thinking: true}
	}
	retired := func(name, display string, budget bool) ModelInfo {
		return ModelInfo{Name: name, DisplayName: display, InputTokenLimit: 1048576, OutputTokenLimit: 65536, Methods: chatMethods,
			Budget: budget, Thinking: budget, Retired: true}
	}
	return []ModelInfo{
		flash("gemini-3.8-flash", "Gemini 3.8 Flash"),
		flash("gemini-3.7-flash", "Gemini 3.7 Flash"),
		flash("gemini-3.6-flash", "Gemini 3.6 Flash"),
		lite("gemini-3.5-flash-lite", "Gemini 3.5 Flash-Lite"),
		lite("gemini-3.1-flash-lite", "Gemini 3.1 Flash-Lite"),
		{Name: "gemini-3.1-pro-preview", DisplayName: "Gemini 3.1 Pro Preview", InputTokenLimit: 1048576, OutputTokenLimit: 65536,
			Methods: chatMethods, Levels: g3Flash, DefaultLevel: genai.ThinkingLevelHigh, Thinking: true},
		{Name: "gemini-embedding-001", DisplayName: "Gemini Embedding 001", InputTokenLimit: 2048, OutputTokenLimit: 1,
			Methods: []string{"embedContent", "countTextTokens", "countTokens", "asyncBatchEmbedContent"}},
		retired("gemini-2.5-flash", "Gemini 2.5 Flash", true),
		retired("gemini-2.5-pro", "Gemini 2.5 Pro", true),
		retired("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", true),
		retired("gemini-2.0-flash", "Gemini 2.0 Flash", false),
		retired("gemini-2.0-flash-lite", "Gemini 2.0 Flash-Lite", false),
	}
}

// WithModels replaces the models the server knows (DefaultModels).
func WithModels(models ...ModelInfo) Option {
	return func(s *Server) { s.models = append([]ModelInfo(nil), models...) }
}

// WithModelPageSize caps the pages of the model list (the API's default page size is 50),
// so that a client's paging is exercised with few models.
func WithModelPageSize(n int) Option {
	return func(s *Server) { s.modelPage = n }
}

// model returns the model the server knows by name.
func (s *Server) model(name string) (ModelInfo, bool) {
	for _, m := range s.models {
		if m.Name == name {
			return m, true
		}
	}
	return ModelInfo{}, false
}

// ModelListRequests counts the requests of the model list (GET /v1beta/models).
func (s *Server) ModelListRequests() int64 { return s.modelLists.Load() }

// listPath and getPath are the model list's paths (Models.List and Models.Get).
var (
	listPath = regexp.MustCompile(`^/(?:v1|v1beta|v1alpha)/models$`)
	getPath  = regexp.MustCompile(`^/(?:v1|v1beta|v1alpha)/models/([^/:]+)$`)
)

// wireModel is a model as the API lists it.
type wireModel struct {
	Name                       string   `json:"name"`
	Version                    string   `json:"version"`
	DisplayName                string   `json:"displayName"`
	Description                string   `json:"description,omitempty"`
	InputTokenLimit            int32    `json:"inputTokenLimit"`
	OutputTokenLimit           int32    `json:"outputTokenLimit"`
	SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
	Temperature                float32  `json:"temperature,omitempty"`
	MaxTemperature             float32  `json:"maxTemperature,omitempty"`
	TopP                       float32  `json:"topP,omitempty"`
	TopK                       int32    `json:"topK,omitempty"`
	Thinking                   bool     `json:"thinking,omitempty"`
}

func (m ModelInfo) wire() wireModel {
	w := wireModel{Name: "models/" + m.Name, Version: "001", DisplayName: m.DisplayName,
		InputTokenLimit: m.InputTokenLimit, OutputTokenLimit: m.OutputTokenLimit,
		SupportedGenerationMethods: m.Methods, Thinking: m.Thinking}
	if slices.Contains(m.Methods, "generateContent") {
		w.Temperature, w.MaxTemperature, w.TopP, w.TopK = 1, 2, 0.95, 64
	}
	return w
}

// serveModels answers the model list: GET /v1beta/models?pageSize=N&pageToken=T (pages of at
// most N, default 50, up to 1000, as the API; retired models are not listed) and GET
// /v1beta/models/{model}. It reports whether the request was one of these.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	if m := getPath.FindStringSubmatch(r.URL.Path); m != nil {
		info, ok := s.model(m[1])
		if !ok || info.Retired {
			writeError(w, &Reply{Status: http.StatusNotFound, ErrorMessage: "models/" + m[1] + " is not found for API version v1beta, or is not supported for get."})
			return true
		}
		writeJSON(w, http.StatusOK, info.wire())
		return true
	}
	if !listPath.MatchString(r.URL.Path) {
		return false
	}
	s.modelLists.Add(1)
	q := r.URL.Query()
	size := 50
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, &Reply{Status: http.StatusBadRequest, ErrorMessage: "Invalid value at 'page_size' (TYPE_INT32), \"" + v + "\""})
			return true
		}
		if n > 0 {
			size = min(n, 1000)
		}
	}
	if s.modelPage > 0 {
		size = min(size, s.modelPage)
	}
	var listed []ModelInfo
	for _, m := range s.models {
		if !m.Retired {
			listed = append(listed, m)
		}
	}
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "page-"))
		if err != nil || !strings.HasPrefix(tok, "page-") || n < 0 || n > len(listed) {
			writeError(w, &Reply{Status: http.StatusBadRequest, ErrorMessage: "Invalid page token."})
			return true
		}
		start = n
	}
	end := min(start+size, len(listed))
	body := struct {
		Models        []wireModel `json:"models"`
		NextPageToken string      `json:"nextPageToken,omitempty"`
	}{Models: []wireModel{}}
	for _, m := range listed[start:end] {
		body.Models = append(body.Models, m.wire())
	}
	if end < len(listed) {
		body.NextPageToken = "page-" + strconv.Itoa(end)
	}
	writeJSON(w, http.StatusOK, body)
	return true
}
