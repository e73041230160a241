package cloud

import (
	"sync"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
)

// docState is what the store last saw of a history's document, by reading or writing it: a
// later save of the same revision writes conditionally on it instead of reading it again.
type docState struct {
	revision   int64
	generation int64     // the document's object_generation
	updateTime time.Time // the document's update time: the precondition of the next write
	// index is the document's search fields as last read or written; nil when not known.
	index *searchFields
}

// indexed is the document as far as indexing needs it: its search fields, or nil.
func (st docState) indexed() *historyDoc {
	if st.index == nil {
		return nil
	}
	return &historyDoc{searchFields: *st.index}
}

// maxStates bounds the memory of states; a save of a history that was forgotten reads its
// document once more, nothing else.
const maxStates = 4096

// states remembers the latest docState of each history the store read or wrote. A state is
// only ever a shortcut: a write conditional on an update time that has changed since fails
// like one whose revision check fails, so a stale state costs a conflict, never a lost turn.
type states struct {
	mu sync.Mutex
	m  map[record.HistoryID]docState
}

func (c *states) get(id record.HistoryID) (docState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[id]
	return st, ok
}

func (c *states) put(id record.HistoryID, st docState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxStates {
		c.m = map[record.HistoryID]docState{}
	}
	c.m[id] = st
}

func (c *states) drop(id record.HistoryID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}
