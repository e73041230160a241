package lookup

import (
	"errors"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/record"
)

// AlertFile reads the one alert of a file (- is stdin), for a chat about it: an input holding
// several findings is refused, with the way to add them and pick one.
func AlertFile(ios *cmdutil.IOStreams, path string) (*record.Alert, error) {
	r, err := cmdutil.OpenInput(ios, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	name := cmdutil.InputName(path)
	var one *record.Alert
	// A chat is about the record given, whatever it is: an event that is not an alert too.
	for f, err := range alert.ReadWith(r, alert.Options{AllEvents: true}, nil) {
		if err != nil {
			return nil, InputError(name, err)
		}
		if one != nil && f.Alert.ID != one.ID {
			return nil, cmdutil.UsageErrorf("%s holds several findings; a chat is about one: add them with 'alertchat alert add -f %s' and chat with -a ID", name, path)
		}
		one = f.Alert
	}
	if one == nil {
		return nil, InputError(name, goerr.Wrap(alert.ErrInvalid, "it holds no findings (an empty list)"))
	}
	return one, nil
}

// InputError is the error of reading input name: its fault (exit 2) or a failed read.
func InputError(name string, err error) error {
	if errors.Is(err, alert.ErrInvalid) {
		return goerr.Wrap(err, "cannot add "+name)
	}
	return goerr.Wrap(err, "cannot read "+name)
}
