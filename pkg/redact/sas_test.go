package redact

import "testing"

// The layouts of Microsoft's "Create a service SAS" and "Create an account
// SAS" pages: the signature is a URL-encoded base64 HMAC-SHA256.
func TestSASSignature(t *testing.T) {
	t.Parallel()
	const (
		enc = "ypeBEsobvcr6wjGzmiPcTaeG7%2FgUfE5yuYB3ha%2FuSLs%3D"
		raw = "PiPoFgA5WUoziU9lZOGxNIu9egCI1CxKy3PurtWcAJ0="
	)
	tests := []struct {
		name, in, want string
	}{
		{"service SAS in a blob URL",
			"https://myaccount.blob.core.windows.net/sascontainer/sasblob.txt?sv=2019-02-02&st=2019-04-29T22%3A18%3A26Z&se=2019-04-30T02%3A23%3A26Z&sr=b&sp=rw&spr=https&sig=" + enc,
			"https://myaccount.blob.core.windows.net/sascontainer/sasblob.txt?sv=2019-02-02&st=2019-04-29T22%3A18%3A26Z&se=2019-04-30T02%3A23%3A26Z&sr=b&sp=rw&spr=https&sig=[REDACTED_API_KEY]"},
		{"account SAS, sig before sv",
			"GET /c?sig=" + enc + "&sv=2022-11-02&ss=bf&srt=s&sp=rl&se=2026-12-01T00:00:00Z HTTP/1.1",
			"GET /c?sig=[REDACTED_API_KEY]&sv=2022-11-02&ss=bf&srt=s&sp=rl&se=2026-12-01T00:00:00Z HTTP/1.1"},
		{"connection string",
			"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl&sig=" + enc,
			"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl&sig=[REDACTED_API_KEY]"},
		{"unencoded, in JSON",
			`{"url":"https://a.blob.core.windows.net/c?sp=r&sv=2022-11-02&sr=c&sig=` + raw + `"}`,
			`{"url":"https://a.blob.core.windows.net/c?sp=r&sv=2022-11-02&sr=c&sig=[REDACTED_API_KEY]"}`},
		{"a query assigned to a token word stays one value",
			"sas token: sp=r&sv=2022-11-02&sr=b&sig=" + enc,
			"sas token: [REDACTED_API_KEY]"},
		// kept
		{"no signed version: not a SAS", "https://example.com/cb?id=7&sig=" + enc, "https://example.com/cb?id=7&sig=" + enc},
		{"a placeholder", "https://a.blob.core.windows.net/c?sv=2022-11-02&sig=<signature>", "https://a.blob.core.windows.net/c?sv=2022-11-02&sig=<signature>"},
		{"not an HMAC-SHA256 length", "?sv=2022-11-02&sig=abcDEF123", "?sv=2022-11-02&sig=abcDEF123"},
		{"another field ending in sig", "?sv=2022-11-02&xsig=" + enc, "?sv=2022-11-02&xsig=" + enc},
		{"prose", "the sig= field of a SAS carries the signature", "the sig= field of a SAS carries the signature"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := all.String(tc.in)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if again, _ := all.String(got); again != got {
				t.Errorf("not idempotent: %s", again)
			}
		})
	}
}
