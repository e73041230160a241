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

// KnowledgeByID is a Knowledge source that also reads entries by ID: a resumed conversation
// is given again the notes its history records (record.History.KnowledgeIDs), those still
// active, since what the model was given lives only in the system instruction, which is not
// stored.
type KnowledgeByID interface {
	ByIDs(ctx context.Context, ids []record.KnowledgeID) ([]*record.Knowledge, error)
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

// startNotes starts the lookup when the session has a Knowledge source: the notes on the
// alert when it begins an investigation (a history with no turns yet); when it resumes one,
// the notes the history was given, those still active (a source that cannot read entries by
// ID gives none), never new ones: what the conversation rests on stays what it was.
func (s *Session) startNotes() {
	if s.opts.Knowledge == nil {
		return
	}
	var find func(ctx context.Context) ([]*record.Knowledge, error)
	switch byID, ok := s.opts.Knowledge.(KnowledgeByID); {
	case len(s.history.Contents) == 0:
		src, a := s.opts.Knowledge, s.alert
		find = func(ctx context.Context) ([]*record.Knowledge, error) { return src.ForAlert(ctx, a) }
	case ok && len(s.history.KnowledgeIDs) > 0:
		ids := slices.Clone(s.history.KnowledgeIDs)
		find = func(ctx context.Context) ([]*record.Knowledge, error) { return byID.ByIDs(ctx, ids) }
	default:
		return
	}
	l := &notesLookup{done: make(chan struct{})}
	s.notes = l
	go func() {
		defer close(l.done)
		ctx, cancel := context.WithTimeout(context.Background(), knowledgeTimeout)
		defer cancel()
		l.entries, l.err = find(ctx)
	}()
}

// Knowledge waits for the team's notes of this investigation and returns them (for a resumed
// conversation, those it was given that are still active; none without a Knowledge source or
// when the lookup failed). The first call
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
