package modelcfg

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"
)

// Lister is the model list of the SDK (*genai.Models).
type Lister interface {
	List(ctx context.Context, config *genai.ListModelsConfig) (genai.Page[genai.Model], error)
}

// ChatModels returns the models the credentials can use for chat: every page of the API's
// model list, keeping those that support generateContent, names without "models/", except
// the ones that take it for another purpose (speech, images, live audio).
func ChatModels(ctx context.Context, l Lister) ([]*genai.Model, error) {
	page, err := l.List(ctx, &genai.ListModelsConfig{PageSize: 100})
	var out []*genai.Model
	for {
		if err != nil {
			return nil, goerr.Wrap(err, "failed to list the Gemini models")
		}
		for _, m := range page.Items {
			if m == nil || !slices.Contains(m.SupportedActions, "generateContent") || specialPurpose(strings.TrimPrefix(m.Name, "models/")) {
				continue
			}
			cp := *m
			cp.Name = strings.TrimPrefix(cp.Name, "models/")
			out = append(out, &cp)
		}
		page, err = page.Next(ctx)
		if errors.Is(err, genai.ErrPageDone) {
			return out, nil
		}
	}
}

// Suggest picks, from the models the credentials can use, the few worth naming instead of an
// unavailable one: the default first, then the current Gemini models the table knows, then
// other Gemini chat models; at most n.
func Suggest(models []*genai.Model, n int) []string {
	var known, other []string
	hasDefault := false
	for _, m := range models {
		switch name := m.Name; {
		case name == DefaultModel:
			hasDefault = true
		case For(name).Known && For(name).Kind == Levels:
			known = append(known, name)
		case strings.HasPrefix(name, "gemini-") && For(name).Kind == Levels && !specialPurpose(name):
			other = append(other, name)
		}
	}
	var out []string
	if hasDefault {
		out = append(out, DefaultModel)
	}
	out = append(out, known...)
	out = append(out, other...)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// specialPurpose tells the models listed for generateContent that are not for chat (speech,
// images, live audio).
func specialPurpose(name string) bool {
	for _, s := range []string{"-tts", "-image", "-live", "-audio", "embedding", "-robotics", "computer-use"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// UnavailableError is a request refused because its model does not exist or is retired: the
// API's 404 NOT_FOUND "models/X is not found for API version v1beta, or is not supported for
// generateContent". It is never retried.
type UnavailableError struct {
	Model string
	// Alternatives are models the credentials can use for chat (Suggest); nil when the list
	// could not be read.
	Alternatives []string
	// ListErr is why the list could not be read.
	ListErr error
	Err     error
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("model %s is not available (retired, or unknown to these credentials)", e.Model)
	if len(e.Alternatives) > 0 {
		msg += "; models that can be used instead: " + strings.Join(e.Alternatives, ", ")
	}
	return msg
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// IsModelNotFound reports whether err is the API refusing a request because of its model: a
// 404 whose message names a model ("models/X is not found ...").
func IsModelNotFound(err error) bool {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 404 {
		return false
	}
	m := strings.ToLower(apiErr.Message)
	return strings.Contains(m, "models/") || strings.Contains(m, "model")
}

// StreamGenerator is the streamed call of the SDK.
type StreamGenerator interface {
	Generator
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// Explainer wraps a generator: a request refused because its model is unavailable returns an
// *UnavailableError naming the models that can be used instead. The list is read on the first
// refusal and shared by every later one; a read that failed (a cancelled turn, the network) is
// tried again at the next refusal.
type Explainer struct {
	next StreamGenerator
	list Lister

	mu   sync.Mutex
	alts []string // the alternatives, once read
	read bool
}

// NewExplainer wraps next; list reads the API's model list.
func NewExplainer(next StreamGenerator, list Lister) *Explainer {
	return &Explainer{next: next, list: list}
}

// GenerateContent calls the wrapped generator.
func (x *Explainer) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	resp, err := x.next.GenerateContent(ctx, model, contents, config)
	if err != nil {
		return nil, x.explain(ctx, model, err)
	}
	return resp, nil
}

// GenerateContentStream calls the wrapped generator.
func (x *Explainer) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for resp, err := range x.next.GenerateContentStream(ctx, model, contents, config) {
			if err != nil {
				yield(nil, x.explain(ctx, model, err))
				return
			}
			if !yield(resp, nil) {
				return
			}
		}
	}
}

func (x *Explainer) explain(ctx context.Context, model string, err error) error {
	if !IsModelNotFound(err) {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var lerr error
	if !x.read {
		var alts []string
		if alts, lerr = alternatives(ctx, x.list, suggested); lerr == nil {
			x.alts, x.read = alts, true
		}
	}
	return &UnavailableError{Model: strings.TrimPrefix(model, "models/"), Alternatives: x.alts, ListErr: lerr, Err: err}
}

// Explain is err as an *UnavailableError naming the models that can be used instead (read
// from list now) when it is the API refusing model, else err: for a call that does not go
// through an Explainer (the Batch API's create).
func Explain(ctx context.Context, list Lister, model string, err error) error {
	if !IsModelNotFound(err) {
		return err
	}
	alts, lerr := alternatives(ctx, list, suggested)
	return &UnavailableError{Model: strings.TrimPrefix(model, "models/"), Alternatives: alts, ListErr: lerr, Err: err}
}

// suggested is how many models an unavailable one's error names.
const suggested = 6

// alternatives are at most n models worth naming instead of an unavailable one (Suggest).
func alternatives(ctx context.Context, list Lister, n int) ([]string, error) {
	if list == nil {
		return nil, nil
	}
	models, err := ChatModels(ctx, list)
	return Suggest(models, n), err
}
