package mdstream_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/termtest"
	"github.com/alertchat/alertchat/pkg/format"
)

// wrapDoc is an answer with every kind of text a model writes: prose with long hyphenated
// words, lists (nested, numbered), a quote, JSON in a code block and inline, a URL, and
// Japanese.
const wrapDoc = `## Assessment

The instance i-0abc123 made outbound connections to a known command-and-control host; you should rotate the instance profile credentials, review the security group rules, and check CloudTrail for any API calls made with the temporary credentials during the window in question. The finding was raised by GuardDuty at 03:12 UTC and has not been archived by anyone on the team yet.

- Rotate the instance profile credentials immediately and revoke every active session that was issued to the role during the incident window, then confirm nothing still uses them.
- Isolate the instance by moving it into a quarantine security group that allows no inbound or outbound traffic except from the forensics subnet.
  - Take an EBS snapshot of every attached volume before anything else changes on the host, and tag each snapshot with the case number.

1. Check whether the role was assumed from any address outside the corporate ranges during the last thirty days of logs.
2. Search the VPC flow logs for the same destination across the whole organisation, not only this account.

> The host was patched last week, so this is unlikely to be a known vulnerability; an exposed credential is the more probable cause of the access.

` + "```json\n" + `{"detail": {"id": "514c60ac-5fc0-54af-9cc2-3e1b2f0a7d11", "resource": {"instanceDetails": {"instanceId": "i-0abc123", "iamInstanceProfile": {"arn": "arn:aws:iam::123456789012:instance-profile/web-server-profile"}}}}}` + "\n```\n" + `
The finding {"id": "514c60ac-5fc0-54af-9cc2-3e1b2f0a7d11", "type": "UnauthorizedAccess:EC2/MaliciousIPCaller.Custom", "severity": 8} refers to https://console.aws.amazon.com/guardduty/home?region=us-east-1#/findings?macros=current&fId=514c60ac5fc054af9cc23e1b2f0a7d11 and should be triaged by the on-call analyst today.

このインスタンスは既知のコマンド＆コントロールサーバーへ外向きの通信を行いました。インスタンスプロファイルの認証情報をただちにローテーションし、セキュリティグループのルールを確認し、該当期間中に一時的な認証情報で行われたAPI呼び出しをCloudTrailで確認してください。調査の結果は担当チームへ共有してください。
`

// TestAnswersWrapOnce reads a rendered and a streamed answer on terminals of 80, 100 and 120
// columns, as a person does: no line runs past the screen's edge, every line of a paragraph
// is as full as the next line's first word allows (no word left alone by a second wrap), and
// a token that fits on a line (a UUID in JSON) is never cut.
func TestAnswersWrapOnce(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{80, 100, 120} {
		for _, chunk := range []int{0, 1, 7, 64} { // 0: rendered whole
			t.Run(fmt.Sprintf("%dcols/chunk%d", cols, chunk), func(t *testing.T) {
				t.Parallel()
				term := termtest.Open(t, cols, 300)
				r := newRenderer(t, cols, 300)
				if chunk == 0 {
					if _, err := term.TTY.WriteString(r.Render(wrapDoc)); err != nil {
						t.Fatal(err)
					}
				} else {
					s := r.Stream(term.TTY)
					for i := 0; i < len(wrapDoc); i += chunk {
						s.Write(wrapDoc[i:min(i+chunk, len(wrapDoc))])
					}
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
				}
				term.Flush(t)
				checkWrapped(t, term.Screen, cols)
			})
		}
	}
}

func checkWrapped(t *testing.T, screen *termtest.Screen, cols int) {
	t.Helper()
	lines := screen.Lines()
	limit := min(cols, 120) - 1
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"514c60ac-5fc0-54af-9cc2-3e1b2f0a7d11", "command-and-control", "UnauthorizedAccess:EC2/MaliciousIPCaller.Custom",
		"Assessment", "• Rotate the", "1. Check whether", "│ The host",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("%q is not whole on one line:\n%s", want, screen.Dump())
		}
	}
	for _, bad := range []string{"##", "```"} {
		if strings.Contains(text, bad) {
			t.Errorf("Markdown syntax %q on the screen:\n%s", bad, screen.Dump())
		}
	}
	for i, l := range lines {
		if w := format.Width(l); w > limit {
			t.Errorf("line %d takes %d columns, more than %d (it ran to the screen's edge):\n%s", i, w, limit, screen.Dump())
		}
		if i == 0 || i+1 >= len(lines) {
			continue
		}
		next := lines[i+1]
		if strings.TrimSpace(l) == "" || strings.TrimSpace(next) == "" || startsItem(next) || indentOf(next) < indentOf(l) {
			continue // the end of a paragraph or an item
		}
		if first := firstWord(next); format.Width(l)+sepWidth(l, first)+format.Width(first) <= limit {
			t.Errorf("line %d ends early: %q from the next line fits on it (a second wrap):\n%s", i, first, screen.Dump())
		}
	}
	var joined strings.Builder
	for _, l := range lines {
		joined.WriteString(strings.TrimSpace(l))
	}
	if want := "セキュリティグループのルールを確認し、該当期間中に一時的な認証情報で行われたAPI呼び出しをCloudTrailで確認してください。"; !strings.Contains(joined.String(), want) {
		t.Errorf("the Japanese paragraph is not all there, in order:\n%s", screen.Dump())
	}
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " │")) }

func startsItem(l string) bool {
	t := strings.TrimLeft(l, " ")
	if strings.HasPrefix(t, "• ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(t[i:], ". ")
}

// firstWord is what of a line could have moved up: its first word, or in Japanese its first
// character with the punctuation that may not start a line.
func firstWord(l string) string {
	t := strings.TrimLeft(l, " │")
	r := []rune(t)
	if len(r) > 0 && format.Width(string(r[0])) == 2 {
		n := 1
		for n < len(r) && strings.ContainsRune("、。，．）」』ー", r[n]) {
			n++
		}
		return string(r[:n])
	}
	if i := strings.IndexByte(t, ' '); i >= 0 {
		return t[:i]
	}
	return t
}

// sepWidth is the space a word moved up would need before it: none between Japanese
// characters.
func sepWidth(l, first string) int {
	r := []rune(l)
	if len(r) > 0 && format.Width(string(r[len(r)-1])) == 2 && format.Width(string([]rune(first)[0])) == 2 {
		return 0
	}
	return 1
}
