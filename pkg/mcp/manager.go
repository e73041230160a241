package mcp

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/termsafe"
	"github.com/alertchat/alertchat/pkg/tool"
)

// Options tune a Manager.
type Options struct {
	// Environ is alertchat's environment, of which a stdio server gets the allow-list.
	Environ []string
	// Warn receives one line per server that cannot start, tool left out, or server that
	// stops mid-session.
	Warn func(line string)
	// StartTimeout bounds a server's start (connect, initialize, tool list); default 30 s.
	StartTimeout time.Duration
	// Transports replace the config's transport of the named servers (tests).
	Transports map[string]sdk.Transport
	// HTTPTransport carries HTTP servers' requests (default http.DefaultTransport).
	HTTPTransport http.RoundTripper
	// Auth is how servers of "auth" are signed in to.
	Auth AuthOptions
	// Elicitor asks the user what a server asks for during a call; nil declines every request.
	Elicitor Elicitor
	// OnProgress is told of a call's progress notifications.
	OnProgress func(Progress)
	// ConfirmEgress asks the user whether a call to a public-only server that would send
	// internal data may go (the default is no), and reports whether a person was asked (a
	// yes nobody gave lets nothing go); nil where nobody can be asked: such a call is denied.
	ConfirmEgress func(ctx context.Context, h EgressHold) (send, asked bool)
	// ToolsChanged is told when a server said its tool list changed, once the change is
	// recorded, so that the next Changed sees it (tests wait on it).
	ToolsChanged func(server string)
}

// Manager starts the configured servers in the background and holds their tools.
type Manager struct {
	o       Options
	mu      sync.Mutex
	servers []*server
	tools   map[string][]tool.Tool // by server, once started
	pending map[string]bool
	// given are the servers whose tools were handed out: each server's tools are handed out
	// once, so a caller can add the late ones to what it already has.
	given map[string]bool
	// warnedPending is set once the servers still starting were named: one warning, not one
	// per question.
	warnedPending bool
	done          chan struct{}
	cancel        context.CancelFunc
}

// Start starts every server of c concurrently and returns at once: the prompt never waits for
// them.
func Start(ctx context.Context, c *Config, o Options) *Manager {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &Manager{o: o, tools: map[string][]tool.Tool{}, pending: map[string]bool{}, given: map[string]bool{}, done: make(chan struct{}), cancel: cancel}
	// Every server is pending before any start goroutine runs, so none of them races the map.
	for name := range c.Servers {
		m.pending[name] = true
	}
	var wg sync.WaitGroup
	for name, cfg := range c.Servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.start(ctx, name, cfg)
		}()
	}
	go func() {
		wg.Wait()
		close(m.done)
	}()
	return m
}

func (m *Manager) start(ctx context.Context, name string, cfg ServerConfig) {
	sctx, cancel := context.WithTimeout(ctx, m.o.StartTimeout)
	defer cancel()
	defer func() {
		m.mu.Lock()
		delete(m.pending, name)
		m.mu.Unlock()
	}()
	s, err := connect(sctx, name, cfg, m.o, m.o.Transports[name])
	if err != nil && sctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("no answer to initialize within %s", m.o.StartTimeout)
	}
	if e, ok := authError(err); ok {
		m.o.Warn(e.Error() + "; its tools are left out")
		return
	}
	if err != nil {
		m.o.Warn(fmt.Sprintf("MCP server %s did not start and is left out: %s", name, termsafe.Line(err.Error())))
		return
	}
	s.setOnStop(func(name string) {
		m.o.Warn(fmt.Sprintf("MCP server %s stopped; its tools now answer \"server stopped\"", name))
	})
	ts, skipped, err := s.tools(sctx)
	if e, ok := authError(err); ok {
		_ = s.close()
		m.o.Warn(e.Error() + "; its tools are left out")
		return
	}
	if err != nil {
		_ = s.close()
		m.o.Warn(fmt.Sprintf("MCP server %s did not list its tools and is left out: %s", name, termsafe.Line(err.Error())))
		return
	}
	for _, sk := range skipped {
		m.o.Warn(fmt.Sprintf("MCP server %s: tool %s is left out: Gemini cannot take its input schema", name, sk))
	}
	m.mu.Lock()
	m.servers = append(m.servers, s)
	m.tools[name] = ts
	m.mu.Unlock()
}

// Tools waits at most wait for the servers still starting, then returns the tools of those
// that are ready and were not handed out by an earlier call (Tools or NewTools), in name
// order; the ones still starting are named in one warning line, the first time only.
func (m *Manager) Tools(ctx context.Context, wait time.Duration) []tool.Tool {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-m.done:
	case <-t.C:
	case <-ctx.Done():
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pending) > 0 && !m.warnedPending {
		m.warnedPending = true
		var names []string
		for n := range m.pending {
			names = append(names, n)
		}
		sort.Strings(names)
		m.o.Warn(fmt.Sprintf("MCP servers not ready yet, asking without them: %s", strings.Join(names, ", ")))
	}
	return m.take()
}

// NewTools returns at once, without waiting or warning, the tools of the servers that have
// become ready since the last call (Tools or NewTools), in name order.
func (m *Manager) NewTools() []tool.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.take()
}

// Changed returns, for each ready server that said its tool list changed since the last call,
// its tools as listed now (a server whose list cannot be read now has none). It waits for the
// servers' answers at most wait.
func (m *Manager) Changed(ctx context.Context, wait time.Duration) map[string][]tool.Tool {
	m.mu.Lock()
	var changed []*server
	for _, s := range m.servers {
		if m.given[s.name] && s.changed.Swap(false) && !s.stopped.Load() {
			changed = append(changed, s)
		}
	}
	m.mu.Unlock()
	if len(changed) == 0 {
		return nil
	}
	out := map[string][]tool.Tool{}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for _, s := range changed {
		ts, skipped, err := s.tools(ctx)
		if err != nil {
			m.o.Warn(fmt.Sprintf("MCP server %s changed its tools and did not list them: %s", s.name, termsafe.Line(err.Error())))
		}
		for _, sk := range skipped {
			m.o.Warn(fmt.Sprintf("MCP server %s: tool %s is left out: Gemini cannot take its input schema", s.name, sk))
		}
		out[s.name] = ts
		m.mu.Lock()
		m.tools[s.name] = ts
		m.mu.Unlock()
	}
	return out
}

// Started is closed once every server has started or failed to.
func (m *Manager) Started() <-chan struct{} { return m.done }

// take hands out the tools of the ready servers not handed out yet; m.mu is held.
func (m *Manager) take() []tool.Tool {
	var all []tool.Tool
	for name, ts := range m.tools {
		if !m.given[name] {
			m.given[name] = true
			all = append(all, ts...)
		}
	}
	// In name order, ties by server and the server's own tool name, so which of two tools
	// mapping to one name is kept does not depend on start order.
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].(*mcpTool), all[j].(*mcpTool)
		if a.decl.Name != b.decl.Name {
			return a.decl.Name < b.decl.Name
		}
		if a.srv.name != b.srv.name {
			return a.srv.name < b.srv.name
		}
		return a.remote < b.remote
	})
	var out []tool.Tool
	for _, t := range all {
		if n := len(out); n > 0 && out[n-1].Declaration().Name == t.Declaration().Name {
			first, second := out[n-1].(*mcpTool), t.(*mcpTool)
			m.o.Warn(fmt.Sprintf("MCP tools %q of server %s and %q of server %s both map to %s; the second is left out",
				first.remote, first.srv.name, second.remote, second.srv.name, t.Declaration().Name))
			continue
		}
		out = append(out, t)
	}
	return out
}

// Close stops every server (a stdio server's process with it) and the ones still starting.
func (m *Manager) Close() error {
	m.cancel()
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []string
	for _, s := range m.servers {
		if err := s.close(); err != nil {
			errs = append(errs, s.name+": "+err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("stopping MCP servers: %s", strings.Join(errs, "; "))
	}
	return nil
}
