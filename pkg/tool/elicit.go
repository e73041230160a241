package tool

// Elicitation is a server's request to the user during a call (MCP elicitation/create), and
// what became of it. What the user typed is not kept: only which fields were asked for.
type Elicitation struct {
	Server string
	// Action is accept, decline or cancel.
	Action string
	// Fields are the names of the fields the server asked for.
	Fields []string
	// Asked is set when a person was asked; a request declined because nobody could be asked,
	// or answered with its defaults on the user's standing order, was not.
	Asked bool
}
