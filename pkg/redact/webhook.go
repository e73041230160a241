package redact

import "strings"

// Webhook URLs: the whole URL is the credential of a Slack, Discord, Teams,
// Zapier, Google Chat or IFTTT webhook; a Telegram Bot API URL gives only its
// token.

// webhookURL proposes the whole URL from a when its host (s[hostStart:e],
// without the port) is a webhook host and its path a webhook's.
func (sc *scanner) webhookURL(s string, a, hostStart, e int) {
	host := s[hostStart:e]
	if c := strings.LastIndexByte(host, ':'); c >= 0 {
		host = host[:c]
	}
	if !webhookHost(host) {
		return
	}
	ue := e
	for ue < len(s) && ctab[s[ue]]&cURL != 0 && ue-e < 4096 {
		ue++
	}
	for ue > e && strings.IndexByte(".,;:!?)]'", s[ue-1]) >= 0 {
		ue--
	}
	if isWebhook(host, s[e:ue]) && !webhookPlaceholder(s[e:ue]) {
		if !eqFold(host, "api.telegram.org") {
			sc.add(a, ue, tAPIKey, prioVendor)
		} else if ts, te, ok := botPathToken(s, e, ue); ok {
			sc.add(ts, te, tAPIKey, prioVendor)
		}
	}
}

// botPathToken finds the token of a Telegram Bot API URL
// (api.telegram.org/bot<id>:<secret>/sendMessage), whose path [e,ue) starts
// with "/bot": the URL is an endpoint, not a webhook, so only the token goes
// and the host stays as the indicator it is (stealers post to it).
func botPathToken(s string, e, ue int) (int, int, bool) {
	ts := e + 4
	te := ts
	for te < ue && s[te] != '/' && s[te] != '?' && s[te] != '#' {
		te++
	}
	c := strings.IndexByte(s[ts:te], ':')
	if c < 5 || te-ts-c-1 < 30 || !allClass(s[ts:ts+c], cDigit) || placeholderBody(s[ts+c+1:te]) {
		return 0, 0, false
	}
	return ts, te, true
}

// webhookHost reports whether host is one of the webhook hosts of isWebhook.
func webhookHost(host string) bool {
	return eqFold(host, "hooks.slack.com") || eqFold(host, "discord.com") || eqFold(host, "discordapp.com") ||
		eqFold(host, "ptb.discord.com") || eqFold(host, "canary.discord.com") || hasSuffixFold(host, ".webhook.office.com") ||
		eqFold(host, "outlook.office.com") || eqFold(host, "outlook.office365.com") || eqFold(host, "hooks.zapier.com") ||
		eqFold(host, "chat.googleapis.com") || eqFold(host, "maker.ifttt.com") || eqFold(host, "api.telegram.org")
}

func isWebhook(host, path string) bool {
	switch {
	case eqFold(host, "hooks.slack.com"):
		return hasPrefixFold(path, "/services/") || hasPrefixFold(path, "/workflows/") || hasPrefixFold(path, "/triggers/")
	case eqFold(host, "discord.com"), eqFold(host, "discordapp.com"), eqFold(host, "ptb.discord.com"), eqFold(host, "canary.discord.com"):
		return hasPrefixFold(path, "/api/webhooks/")
	case hasSuffixFold(host, ".webhook.office.com"):
		return hasPrefixFold(path, "/webhookb2/")
	case eqFold(host, "outlook.office.com"), eqFold(host, "outlook.office365.com"):
		return hasPrefixFold(path, "/webhook/")
	case eqFold(host, "hooks.zapier.com"):
		return hasPrefixFold(path, "/hooks/catch/")
	case eqFold(host, "chat.googleapis.com"):
		return strings.Contains(path, "key=") || strings.Contains(path, "token=")
	case eqFold(host, "maker.ifttt.com"):
		return strings.Contains(path, "/key/")
	case eqFold(host, "api.telegram.org"):
		return hasPrefixFold(path, "/bot") && strings.IndexByte(path, ':') > 0
	}
	return false
}

// webhookPlaceholder reports a webhook URL whose secret, the last path
// segment, is a placeholder (…/services/T00000000/B00000000/XXXXXXXX…): a
// documentation example, not a credential.
func webhookPlaceholder(path string) bool {
	if k := strings.IndexAny(path, "?#"); k >= 0 {
		path = path[:k]
	}
	path = strings.TrimRight(path, "/")
	seg := path[strings.LastIndexByte(path, '/')+1:]
	return len(seg) >= 8 && placeholderBody(seg)
}
