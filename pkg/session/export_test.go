package session

import "google.golang.org/genai"

// AppendLive adds contents to the live transcript as if earlier turns had produced them (tool
// calls the fake cannot make); the next save stores them.
func (s *Session) AppendLive(cs ...*genai.Content) { s.live = append(s.live, cs...) }

// ResetTo drops every content from index n on, live and stored, as if the session had just
// saved n contents (benchmarks repeat one turn on the same transcript).
func (s *Session) ResetTo(n int) {
	s.live = s.live[:n]
	s.history.Contents = s.history.Contents[:n]
	s.history.RedactedCount = n
}
