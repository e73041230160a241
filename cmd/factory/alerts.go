package factory

import (
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/record"
)

// ReadAlerts reads and validates alert files (- is stdin), in order; none is returned when
// one is bad, so nothing is stored.
func ReadAlerts(ios *cmdutil.IOStreams, files []string) ([]*record.Alert, error) {
	out := make([]*record.Alert, 0, len(files))
	for _, path := range files {
		data, err := cmdutil.ReadInput(ios, path, alert.MaxSize)
		if err != nil {
			return nil, err
		}
		a, err := alert.Parse(data)
		if err != nil {
			return nil, goerr.Wrap(err, "cannot add "+cmdutil.InputName(path))
		}
		out = append(out, a)
	}
	return out, nil
}
