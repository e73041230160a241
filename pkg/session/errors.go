package session

import "errors"

var (
	// ErrBlocked is returned when the model refuses a question (safety and similar blocks).
	ErrBlocked = errors.New("blocked by the model")
	// ErrEmptyAnswer is returned when the model answers with nothing.
	ErrEmptyAnswer = errors.New("empty answer")
	// ErrCallsNotText is returned when the model keeps calling tools after calling was turned
	// off (or none were declared), so the question got no text answer.
	ErrCallsNotText = errors.New("the model kept calling tools instead of answering")
	// ErrInvalidTitle is returned for an unusable manual title.
	ErrInvalidTitle = errors.New("invalid title")
)
