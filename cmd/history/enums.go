package history

import "github.com/alertchat/alertchat/pkg/record"

// verdictValues are the verdicts' names, the values of --verdict.
func verdictValues() []string {
	names := make([]string, len(record.Verdicts))
	for i, v := range record.Verdicts {
		names[i] = string(v)
	}
	return names
}
