package cmdutil

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// An enum flag parses as the string flag it wraps, shows its values in help, and hands them
// to whoever walks the command's flags.
func TestStringEnumFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"default", []string{"x"}, "text"},
		{"long", []string{"x", "--output", "json"}, "json"},
		{"short", []string{"x", "-o", "md"}, "md"},
		// The command judges the value (with its own message): the flag only names the set.
		{"outside the set reaches the command", []string{"x", "-o", "yaml"}, "yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got string
			flag := StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &got}, "text", "md", "json")
			var help bytes.Buffer
			c := &cli.Command{Name: "x", Flags: []cli.Flag{flag}, Writer: &help, Action: func(context.Context, *cli.Command) error { return nil }}
			if err := c.Run(context.Background(), tc.args); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("value %q, want %q", got, tc.want)
			}
			if v := EnumValues(c.Flags[0]); !slices.Equal(v, []string{"text", "md", "json"}) {
				t.Errorf("EnumValues = %q", v)
			}
		})
	}
}

func TestStringEnumFlagHelp(t *testing.T) {
	t.Parallel()
	var help bytes.Buffer
	c := &cli.Command{Name: "x", Writer: &help, Flags: []cli.Flag{
		StringEnumFlag(&cli.StringFlag{Name: "verdict", Usage: "how it ended"}, "benign", "escalated"),
		&cli.StringFlag{Name: "note", Usage: "free text"},
	}}
	if err := c.Run(context.Background(), []string{"x", "--help"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help.String(), "how it ended: {benign|escalated}") {
		t.Errorf("help does not name the values:\n%s", help.String())
	}
	if v := EnumValues(c.Flags[1]); v != nil {
		t.Errorf("a plain flag has values %q", v)
	}
	// The values given are copied: changing the caller's slice changes nothing.
	values := []string{"a", "b"}
	f := StringEnumFlag(&cli.StringFlag{Name: "y"}, values...)
	values[0] = "z"
	if got := f.EnumValues(); got[0] != "a" {
		t.Errorf("EnumValues = %q", got)
	}
}
