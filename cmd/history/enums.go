package history

import "github.com/alertchat/alertchat/pkg/record"

// verdictValues are the verdicts' names, the values of --verdict.
func verdictValues() []string { return record.VerdictValues() }
