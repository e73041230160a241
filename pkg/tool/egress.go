package tool

// Egress is what became of a call held back before it was sent, because its arguments would
// send internal data to a server that may receive public indicators only (pkg/mcp's egress
// guard). Only the guard reports it, from the user's configuration and the terminal's answer:
// nothing in a call's arguments or a result does.
type Egress struct {
	// Kinds are the kinds of what would have left ("internal address", "e-mail address", ...),
	// each once, in the order found; never the values themselves.
	Kinds []string
	// Sent is set when the user let the call go at the guard's question.
	Sent bool
	// Asked is set when a person was asked; a call denied because nobody could be asked was not.
	Asked bool
}
