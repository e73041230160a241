package geminitest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"regexp"
	"strings"
	"unicode"

	"google.golang.org/genai"
)

// embedPath matches the embedding methods: batchEmbedContents is what the genai SDK calls for
// Models.EmbedContent on the Gemini API; embedContent is the single-content method.
var embedPath = regexp.MustCompile(`^/(?:v1|v1beta|v1alpha|v1beta1)/(?:.*/)?models/([^/:]+):(batchEmbedContents|embedContent)$`)

// DefaultEmbeddingDims is the size of the fake's vectors when the request asks for none.
const DefaultEmbeddingDims = 64

type embedRequest struct {
	Content              *genai.Content `json:"content"`
	OutputDimensionality int            `json:"outputDimensionality"`
	TaskType             string         `json:"taskType"`
}

// serveEmbed answers an embedding request with Embedding of each content's text: the same
// text always gets the same vector, texts sharing words get close vectors.
func (s *Server) serveEmbed(w http.ResponseWriter, r *http.Request, method string) {
	s.embeds.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var reqs []embedRequest
	if method == "embedContent" {
		var one embedRequest
		err = json.Unmarshal(body, &one)
		reqs = append(reqs, one)
	} else {
		var batch struct {
			Requests []embedRequest `json:"requests"`
		}
		err = json.Unmarshal(body, &batch)
		reqs = batch.Requests
	}
	if err != nil || len(reqs) == 0 {
		writeError(w, &Reply{Status: http.StatusBadRequest, ErrorMessage: "Invalid JSON payload received."})
		return
	}
	type values struct {
		Values []float32 `json:"values"`
	}
	var out []values
	for _, q := range reqs {
		if q.Content == nil {
			writeError(w, &Reply{Status: http.StatusBadRequest, ErrorMessage: "* content: content is not specified"})
			return
		}
		dims := q.OutputDimensionality
		if dims <= 0 {
			dims = DefaultEmbeddingDims
		}
		out = append(out, values{Embedding(contentText(q.Content), dims)})
	}
	if method == "embedContent" {
		writeJSON(w, http.StatusOK, map[string]any{"embedding": out[0]})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"embeddings": out})
}

// EmbedRequests is how many embedding requests the server received.
func (s *Server) EmbedRequests() int64 { return s.embeds.Load() }

// Embedding is the fake's deterministic embedding of text: a hashed bag of its lower-cased
// words, each word adding ±1 to one of dims coordinates, normalised to length 1. Texts with
// more words in common have a greater cosine similarity.
func Embedding(text string, dims int) []float32 {
	v := make([]float32, dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	for _, w := range words {
		h := fnv.New64a()
		_, _ = h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[int(x%uint64(dims))] += sign
	}
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
	}
	return v
}
