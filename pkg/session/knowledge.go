package session

import (
	"context"
	"slices"
	"time"

	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/record"
)

// Knowledge finds the team's notes on an alert (pkg/knowledge.Retriever).
type Knowledge interface {
	ForAlert(ctx context.Context, a *record.Alert) ([]*record.Knowledge, error)
}

// knowledgeTimeout bounds the lookup of the notes: a slow store costs the investigation its
// notes, never its answer.
const knowledgeTimeout = 10 * time.Second

// notesLookup is the lookup of a new investigation's notes, started with the session so that
// it runs beside whatever the caller reads before the first question (on the cloud store it
// adds no round trip of its own), and taken once, before the first request.
type notesLookup struct {
	done    chan struct{}
	entries []*record.Knowledge
	err     error
	taken   bool
}

// startNotes starts the lookup when the session begins an investigation (a history with no
// turns yet) and has a Knowledge source: a resumed conversation keeps what it was given.
func (s *Session) startNotes() {
	if s.opts.Knowledge == nil || len(s.history.Contents) > 0 {
		return
	}
	l := &notesLookup{done: make(chan struct{})}
	s.notes = l
	src, a := s.opts.Knowledge, s.alert
	go func() {
		defer close(l.done)
		ctx, cancel := context.WithTimeout(context.Background(), knowledgeTimeout)
		defer cancel()
		l.entries, l.err = src.ForAlert(ctx, a)
	}()
}

// Knowledge waits for the team's notes of this investigation and returns them (none for a
// resumed conversation, without a Knowledge source, or when the lookup failed). The first call
// puts them into the system instruction and records their IDs on the history
// (record.History.KnowledgeIDs); the first request calls it itself, and a chat calls it to show
// them.
func (s *Session) Knowledge(ctx context.Context) []*record.Knowledge {
	l := s.notes
	if l == nil {
		return nil
	}
	if !l.taken {
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil // asked again by the next question
		}
		l.taken = true
		if l.err != nil {
			s.logger().Warn("team knowledge unavailable; the investigation starts without it", "error", l.err)
			l.entries = nil
		}
		if len(l.entries) > 0 {
			s.Offer(knowledge.Instruction(l.entries))
			for _, id := range knowledge.IDs(l.entries) {
				if !slices.Contains(s.history.KnowledgeIDs, id) {
					s.history.KnowledgeIDs = append(s.history.KnowledgeIDs, id)
				}
			}
		}
	}
	return l.entries
}
