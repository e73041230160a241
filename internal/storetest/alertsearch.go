package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Alert search contract (store.AlertSearcher): the words of an alert's fields and its raw
// indicators (an IP, a domain, a hash, an ARN) find it, an indicator matches itself and not a
// longer or shorter one, only the workspace's alerts are found, and hits carry a snippet.
func testAlertSearch(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	var as store.AlertSearcher = a
	put := func(s store.Store, id, title, data string) {
		t.Helper()
		if _, err := s.PutAlert(ctx, &record.Alert{ID: record.AlertID(id), Title: title, Data: []byte(data)}); err != nil {
			t.Fatal(err)
		}
	}
	put(a, "alert-dns", "Drop Point domain name queried", `{"Type":"Trojan:EC2/DropPoint!DNS","Resource":{"InstanceId":"i-99999999"},"Service":{"Action":{"DnsRequestAction":{"Domain":"3322.org"}},"RemoteIp":"198.51.100.23"}}`)
	put(a, "alert-ssh", "SSH brute force", `{"Type":"UnauthorizedAccess:EC2/SSHBruteForce","RemoteIp":"198.51.100.2","Sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","Role":"arn:aws:iam::123456789012:role/deploy"}`)
	put(b, "alert-other", "Other workspace", `{"RemoteIp":"198.51.100.23","Domain":"3322.org"}`)
	// Japanese, as Japanese is written: no spaces around the words.
	put(a, "alert-ja", "管理者アカウントへの不審なログイン", `{"Type":"Policy:IAMUser/RootCredentialUsage","Description":"ルート認証情報による不審なログインが検出されました。アカウント侵害の可能性があります。"}`)
	find := func(q string) []store.AlertHit {
		t.Helper()
		hits, err := as.SearchAlerts(ctx, store.AlertSearchQuery{Text: q})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return hits
	}
	ids := func(hs []store.AlertHit) []record.AlertID {
		out := make([]record.AlertID, len(hs))
		for i, x := range hs {
			out[i] = x.Alert.ID
		}
		return out
	}
	for _, tc := range []struct {
		q    string
		want []record.AlertID
	}{
		{"198.51.100.23", []record.AlertID{"alert-dns"}},
		{"198.51.100.2", []record.AlertID{"alert-ssh"}},
		{"3322.org", []record.AlertID{"alert-dns"}},
		{"SSHBruteForce", []record.AlertID{"alert-ssh"}},
		{"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", []record.AlertID{"alert-ssh"}},
		{"arn:aws:iam::123456789012:role/deploy", []record.AlertID{"alert-ssh"}},
		{"i-99999999", []record.AlertID{"alert-dns"}},
		{"ログイン", []record.AlertID{"alert-ja"}},
		{"侵害", []record.AlertID{"alert-ja"}},
		{"認証情報", []record.AlertID{"alert-ja"}},
		{"不審なログイン", []record.AlertID{"alert-ja"}},
		{"ログアウト", nil}, // shares ログ with ログイン, and no more
		{"kubernetes", nil},
		{"", nil},
	} {
		got := ids(find(tc.q))
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %q: %v, want %v", tc.q, got, tc.want)
		}
	}
	hits := find("3322.org")
	if len(hits) != 1 || hits[0].Alert.Data != nil || hits[0].Alert.Title != "Drop Point domain name queried" ||
		!strings.Contains(hits[0].Snippet, store.SnippetOpen) || hits[0].Score <= 0 {
		t.Fatalf("hit %+v", hits)
	}
	if hits := find("侵害"); len(hits) != 1 || !strings.Contains(hits[0].Snippet, store.SnippetOpen+"侵害"+store.SnippetClose) {
		t.Fatalf("hit of a Japanese word %+v, want 侵害 marked in its snippet", hits)
	}
}
