package mdstream_test

import (
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// TestLinksPrintOnce: an address or link whose text is its target prints once; a link with
// other text keeps its target; nothing of the renderer's marks is left.
func TestLinksPrintOnce(t *testing.T) {
	t.Parallel()
	r, err := mdstream.NewRenderer(mdstream.Options{Width: 80})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"mail alice@example.com now", "mail alice@example.com now"},
		{"mail <alice@example.com> now", "mail alice@example.com now"},
		{"see [alice@example.com](mailto:alice@example.com) now", "see alice@example.com now"},
		{"see https://example.com/x now", "see https://example.com/x now"},
		{"see <https://example.com/x> now", "see https://example.com/x now"},
		{"see [https://example.com/x](https://example.com/x) now", "see https://example.com/x now"},
		{"see [docs](https://example.com/x) now", "see docs https://example.com/x now"},
		{"see [the *bold* docs](https://example.com/x) now", "see the bold docs https://example.com/x now"},
		{"- 連絡先: bob@example.jp まで", "• 連絡先: bob@example.jp まで"},
		{strings.Repeat("word ", 12) + "alice@example.com and more", strings.Repeat("word ", 12) + "alice@example.com and more"},
	} {
		out := r.Render(tc.in)
		if strings.Contains(out, "\x1b[700") {
			t.Errorf("Render(%q) leaves a mark: %q", tc.in, out)
		}
		got := strings.Join(strings.Fields(termsafe.StripCSI(out)), " ")
		if got != tc.want {
			t.Errorf("Render(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
