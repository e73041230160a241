package e2e_test

import (
	"testing"

	"github.com/alertchat/alertchat/internal/testenv"
)

// With --embeddings (here ALERTCHAT_EMBEDDINGS), every save embeds what it adds through the
// Gemini embedding endpoint (the fake serves deterministic vectors), and a search finds a
// history by meaning as well as by words.
func TestSearchByMeaningThroughTheBinary(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("Share encrypted"))
	c.env = append(c.env, "ALERTCHAT_EMBEDDINGS=true")
	alertID := c.addAlert("guardduty.json")
	ransom := c.askJSON("", "-a", alertID, "-q", "files renamed with a locked extension and a ransom note")
	c.askJSON("", "-a", alertID, "-q", "a user clicked a link in a mail")
	if n := c.srv.EmbedRequests(); n < 2 {
		t.Fatalf("embedding requests = %d, want one a save at least", n)
	}
	got := c.search("locked ransom files")
	if len(got) == 0 || got[0].ID != ransom.HistoryID {
		t.Fatalf("search = %+v, want %s first", got, ransom.HistoryID)
	}
	// Without embeddings the same store still answers by words.
	c.env = append(c.env, "ALERTCHAT_EMBEDDINGS=false")
	if got := c.search("ransom"); len(got) != 1 || got[0].ID != ransom.HistoryID {
		t.Fatalf("search by words = %+v", got)
	}
}

// The same through the binary on Firestore (emulator) and Cloud Storage: words, meaning
// (FindNearest), workspace isolation.
func TestSearchCloudThroughTheBinary(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t, titleAnswer("Share encrypted"))
	c.env = append(c.env, cloud.Env()...)
	c.env = append(c.env, "ALERTCHAT_WORKSPACE=blue", "ALERTCHAT_EMBEDDINGS=true")
	alertID := c.addAlert("scc.json")
	ransom := c.askJSON("", "-a", alertID, "-q", "files renamed with a locked extension and a ransom note")
	c.askJSON("", "-a", alertID, "-q", "a user clicked a link in a mail")
	if got := c.search("ransom"); len(got) == 0 || got[0].ID != ransom.HistoryID || got[0].AlertID != alertID || got[0].Score != 1 {
		t.Fatalf("search by words = %+v", got)
	}
	if got := c.search("locked ransom files"); len(got) == 0 || got[0].ID != ransom.HistoryID {
		t.Fatalf("search = %+v, want %s first", got, ransom.HistoryID)
	}
	other := *c
	other.env = append(append([]string{}, c.env...), "ALERTCHAT_WORKSPACE=red")
	if got := other.search("ransom"); len(got) != 0 {
		t.Fatalf("another workspace: %+v", got)
	}
}
