package cmdutil

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

// EnumFlag is a string flag whose value is one of a fixed set. It is a *cli.StringFlag to the
// parser; the set is kept beside it so that help, the generated reference and man pages, and
// shell completion all read the allowed values from the flag itself instead of a copy.
// Commands still check the value where they use it, with their own message.
type EnumFlag struct {
	*cli.StringFlag
	values []string
}

// StringEnumFlag makes f an enum flag of values, in the order given (the order help shows):
// its usage gains ": {a|b|c}", as gh's cmdutil.StringEnumFlag writes it.
func StringEnumFlag(f *cli.StringFlag, values ...string) *EnumFlag {
	f.Usage += ": " + FormatValues(values)
	return &EnumFlag{StringFlag: f, values: slices.Clone(values)}
}

// EnumValues returns the allowed values of the flag.
func (f *EnumFlag) EnumValues() []string { return slices.Clone(f.values) }

// Enum is what a flag with a fixed set of values offers (EnumFlag does; a flag of another
// kind may too).
type Enum interface {
	EnumValues() []string
}

// EnumValues returns the allowed values of f, or nil when f takes any value. Completion and
// the documentation generator use it.
func EnumValues(f cli.Flag) []string {
	if e, ok := f.(Enum); ok {
		return e.EnumValues()
	}
	return nil
}

// FormatValues writes allowed values as help shows them: {a|b|c}.
func FormatValues(values []string) string {
	return "{" + strings.Join(values, "|") + "}"
}
