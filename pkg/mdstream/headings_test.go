package mdstream_test

import (
	"testing"

	"github.com/alertchat/alertchat/pkg/mdstream"
)

func TestDemoteHeadings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"## Assessment\ntext\n### Detail\n", "### Assessment\ntext\n#### Detail\n"},
		{"# Top\n###### Deep\n", "### Top\n###### Deep\n"},
		{"#### Already low\n", "#### Already low\n"},
		{"no headings\n#hashtag\n", "no headings\n#hashtag\n"},
		{"```sh\n# a shell comment\n```\n## Real\n", "```sh\n# a shell comment\n```\n### Real\n"},
		{"  ## Indented", "  ### Indented"},
	} {
		if got := mdstream.DemoteHeadings(tc.in, 3); got != tc.want {
			t.Errorf("DemoteHeadings(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
