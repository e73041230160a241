package redact

import "testing"

func TestFixtureShapes(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"GITHUB_TOKEN=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "GITHUB_TOKEN=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
		{"SLACK_BOT_TOKEN=xoxb-123456", "SLACK_BOT_TOKEN=xoxb-123456"},
		{"SLACK_TOKEN=xoxb-0000000000-0000000000-000000000000000000000000", "SLACK_TOKEN=xoxb-0000000000-0000000000-000000000000000000000000"},
		// short patterns are what the labelling policy counts as the secret they stand for
		{"api_key: 1234567890abcdef1234567890abcdef", "api_key: [REDACTED_API_KEY]"},
		{"token=0123456789abcdefghijklmnopqrstuvwxyz", "token=0123456789abcdefghijklmnopqrstuvwxyz"},
		{"key 00000000000000000000ABCDEFGHIJKLMNOPQRSTUVWXYZ", "key 00000000000000000000ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
		// real ones go
		{"GITHUB_TOKEN=ghp_Ie2pUNsBKTd6rlWzBFQQT28UVk2ZKU15B7gt", "GITHUB_TOKEN=[REDACTED_API_KEY]"},
		{"SLACK_BOT_TOKEN=xoxb-931150101227-448380944013-K9XR9SOyr15jyligoQexbtmo", "SLACK_BOT_TOKEN=[REDACTED_API_KEY]"},
		{"password=abcdef123456", "password=[REDACTED_SECRET]"},
	}
	r := New(AllTypes()...)
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			if got, _ := r.String(c.in); got != c.want {
				t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestURLIndicatorsKept(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"},
		{"https://hooks.slack.com/services/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", "[REDACTED_API_KEY]"},
		{"DATABASE_URL=postgres://app@db.internal:5432/app", "DATABASE_URL=postgres://app@db.internal:5432/app"},
		{"DATABASE_URL=postgres://app:pXn7!eR2wq@db.internal:5432/app", "DATABASE_URL=postgres://app:[REDACTED_SECRET]@db.internal:5432/app"},
		{"Allowlist *.my.salesforce.com and *.zendesk.com now", "Allowlist *.my.salesforce.com and *.zendesk.com now"},
		{"mail alice@example.com now", "mail [REDACTED_EMAIL] now"},
		// an address as a URL's user name is an address; a template's <password> is no value
		{"EMAIL_URL=smtp+tls://notify@example.com:pXn7!eR2wq@smtp.example.com:587", "EMAIL_URL=smtp+tls://[REDACTED_EMAIL]:[REDACTED_SECRET]@smtp.example.com:587"},
		{"ssh://git@github.com:22/acme/x.git", "ssh://git@github.com:22/acme/x.git"},
		{"MONGO_URL=mongodb+srv://app_rw:<password>@cluster0.ab1cd.mongodb.net/orders", "MONGO_URL=mongodb+srv://app_rw:<password>@cluster0.ab1cd.mongodb.net/orders"},
		{"<password>pXn7!eR2wq</password>", "<password>[REDACTED_SECRET]</password>"},
	}
	r := New(AllTypes()...)
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			if got, _ := r.String(c.in); got != c.want {
				t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
