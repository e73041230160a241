// Package sentinel holds the error values that say what kind of failure an error is. The
// library returns them (pkg/store, pkg/alert) and the command line maps them to exit codes
// (cmd/cmdutil.ExitCode); keeping them in a leaf lets the command line's lightest package
// classify errors without linking the store or the model.
package sentinel

import "errors"

var (
	// NotFound: what was named does not exist, or belongs to another workspace (exit 3).
	NotFound = errors.New("not found")
	// InvalidRequest: a request the store refuses, such as a bad ID or cursor (exit 2).
	InvalidRequest = errors.New("invalid request")
	// InvalidAlert: an alert that cannot be read or stored as given (exit 2).
	InvalidAlert = errors.New("invalid alert")
)
