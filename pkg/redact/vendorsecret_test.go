package redact

import "testing"

func TestVendorSecretValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, val string
		want     bool
	}{
		{"asanaToken", "jy4kq78gv6gmnah4jd4yncjqicc7jgbd", true},
		{"ASANA_CLIENT_ID", "1234567890123456", false}, // an Asana client ID is 16 digits
		{"alibaba_token", "vcdkjer7t1on9483aku9esric7ojcz", true},
		{"kucoinToken", "ba80d15b-61c2-24f6-f8b5-76bff8e887f8", true},
		{"linkedin-token", "yszj43ee7zo7bf61", true},
		{"twitterToken", "tu38bdynogdsfkcs9fyrp6p2l4no0sjh1d3wz5d76pioi", true},
		{"twitterToken", "AbCdEfGhIjKlMnOpQrStUvWxY", false},        // 25: an API key
		{"bittrexToken", "mf2cvt23oa68xtalb52dqdz77ps93kzp", false}, // key and secret share the shape
		{"linear_token", "3fa4ee08564243e99c3c44c285f53fcd", true},
		{"linear_token", "3fa4ee08564243e99c3c44c285f53fcZ", false},              // not hex
		{"api_token", "jy4kq78gv6gmnah4jd4yncjqicc7jgbd", false},                 // no vendor named
		{"ZENDESK_API_TOKEN", "OSipLnljVlVF5ECwitG7rTsVWM9l6M4Q2YZbUqYm", false}, // an API token's shape
	}
	for _, tt := range tests {
		if got := vendorSecretValue(tt.key, tt.val); got != tt.want {
			t.Errorf("vendorSecretValue(%q, %q) = %v, want %v", tt.key, tt.val, got, tt.want)
		}
	}
}
