package store

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// CallCounter counts a store's requests to its backend by kind ("firestore.get",
// "gcs.write", "sqlite.tx", ...), so a command can log how many it made and a test can pin
// them. A nil *CallCounter counts nothing. It is safe for concurrent use.
type CallCounter struct {
	mu sync.Mutex
	n  map[string]int
}

// Add counts one request of kind.
func (c *CallCounter) Add(kind string) { c.AddN(kind, 1) }

// AddN counts n requests of kind.
func (c *CallCounter) AddN(kind string, n int) {
	if c == nil || n == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[kind] += n
}

// Total is the number of requests counted.
func (c *CallCounter) Total() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := 0
	for _, n := range c.n {
		t += n
	}
	return t
}

// Counts returns a copy of the counts by kind.
func (c *CallCounter) Counts() map[string]int {
	m := map[string]int{}
	if c == nil {
		return m
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, n := range c.n {
		m[k] = n
	}
	return m
}

// Reset forgets every count.
func (c *CallCounter) Reset() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = nil
}

// String is the counts for a debug log line: "4 calls: firestore.get=2 gcs.read=1 gcs.write=1".
func (c *CallCounter) String() string {
	m := c.Counts()
	kinds := make([]string, 0, len(m))
	total := 0
	for k, n := range m {
		kinds = append(kinds, k)
		total += n
	}
	slices.Sort(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "%d calls", total)
	for i, k := range kinds {
		if i == 0 {
			b.WriteString(":")
		}
		fmt.Fprintf(&b, " %s=%d", k, m[k])
	}
	return b.String()
}
