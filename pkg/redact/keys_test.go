package redact

import (
	"fmt"
	"testing"
)

func TestClassifyKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key  string
		want keyInfo
	}{
		{"password", keyInfo{cls: keySecret}},
		{"db_password_hash", keyInfo{cls: keyNone}},
		{"client_secret", keyInfo{cls: keySecret}},
		{"api_key", keyInfo{cls: keyAPI, api: true}},
		{"stripeApiKey", keyInfo{cls: keyAPI, api: true}},
		{"key_down_event", keyInfo{cls: keyNone}},
		{"AccountKey", keyInfo{cls: keySecret}},
		{"aws_access_key_id", keyInfo{cls: keyNone, accessKeyID: true}},
		{"AccessKeyId", keyInfo{cls: keyNone, accessKeyID: true}},
		{"sonar.login", keyInfo{cls: keyAPI}},
		{"username", keyInfo{cls: keyNone}},
		{"get_secret", keyInfo{cls: keySecret, lookup: true}},
		{"sumo_access_key", keyInfo{cls: keyAPI, sumo: true}},
		{"facebook_app_secret", keyInfo{cls: keySecret, facebook: true}},
		{"cloudant_api_key", keyInfo{cls: keyAPI, cloudant: true, api: true}},
		{"AZURE_STORAGE_SAS_TOKEN", keyInfo{cls: keyAPI}},
		{"storage_shared_key", keyInfo{cls: keySecret}},
		{"AZURE_DEVOPS_EXT_PAT", keyInfo{cls: keyAPI}},
		{"GITHUB_PAT", keyInfo{cls: keyAPI}},
		{"pat_length", keyInfo{cls: keyNone}},
	}
	for _, tt := range tests {
		if got := classifyKey(tt.key); got != tt.want {
			t.Errorf("classifyKey(%q) = %+v, want %+v", tt.key, got, tt.want)
		}
	}
}

// The key memo answers what classifyKey answers, for keys that share a slot, keys too long
// to be kept, and keys asked for again after others took their slot.
func TestKeyInfoMemo(t *testing.T) {
	t.Parallel()
	keys := []string{"password", "db_password_hash", "api_key", "key_down_event", "AccessKeyId", "sonar.login",
		"a", "", "x_token", "client_secret", "clientSecret", "cloudant_api_key",
		"a_very_long_configuration_key_name_that_holds_a_password"}
	for k := range 3000 {
		keys = append(keys, fmt.Sprintf("field%d_token", k), fmt.Sprintf("name%d", k))
	}
	var m keyInfoMemo
	for round := range 2 {
		for k := range keys {
			key := keys[k]
			if round == 1 {
				key = keys[len(keys)-1-k]
			}
			if got, want := m.classify(key), classifyKey(key); got != want {
				t.Fatalf("round %d: classify(%q) = %+v, classifyKey = %+v", round, key, got, want)
			}
		}
	}
}
