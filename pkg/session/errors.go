package session

import "errors"

var (
	// ErrBlocked is returned when the model refuses a question (safety and similar blocks).
	ErrBlocked = errors.New("blocked by the model")
	// ErrEmptyAnswer is returned when the model answers with nothing.
	ErrEmptyAnswer = errors.New("empty answer")
	// ErrInvalidTitle is returned for an unusable manual title.
	ErrInvalidTitle = errors.New("invalid title")
)
