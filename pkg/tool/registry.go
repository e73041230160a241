package tool

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"google.golang.org/genai"
)

// Registry holds the tools of one chat, by the name the model calls. It is safe for
// concurrent use: servers that start in the background add their tools while a chat runs.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// NewRegistry returns a registry holding tools.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add adds t. A name already taken is an error naming both tools.
func (r *Registry) Add(t Tool) error {
	d := t.Declaration()
	if d == nil || d.Name == "" {
		return fmt.Errorf("a tool without a name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.tools[d.Name]; ok {
		return fmt.Errorf("two tools are named %q: %s and %s", d.Name, describe(old), describe(t))
	}
	r.tools[d.Name] = t
	return nil
}

// RemoveServer removes the tools of the MCP server named server (its tool list changed).
func (r *Registry) RemoveServer(server string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for n, t := range r.tools {
		if OriginOf(t).Server == server {
			delete(r.tools, n)
		}
	}
}

func describe(t Tool) string {
	if o := OriginOf(t); o.Server != "" {
		return "server " + o.Server
	}
	return "built-in"
}

// Lookup returns the tool the model calls name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names are the tools' names, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.tools))
	for n := range r.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Declarations are what a request declares: one genai.Tool holding every declaration, in name
// order (a stable order keeps requests cacheable); nil when the registry is empty or nil.
func (r *Registry) Declarations() []*genai.Tool {
	names := r.Names()
	if len(names) == 0 {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	decls := make([]*genai.FunctionDeclaration, 0, len(names))
	for _, n := range names {
		decls = append(decls, r.tools[n].Declaration())
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}
}

// Call runs the tool the model called name with args. An unknown name is an error result the
// model can read, never a panic.
func (r *Registry) Call(ctx context.Context, name string, args map[string]any) map[string]any {
	t, ok := r.Lookup(name)
	if !ok {
		return Error(fmt.Sprintf("unknown tool %q", name))
	}
	res := t.Call(ctx, args)
	if res == nil {
		return map[string]any{}
	}
	return res
}

// Error is a failure result: {"error": msg}.
func Error(msg string) map[string]any { return map[string]any{"error": msg} }
