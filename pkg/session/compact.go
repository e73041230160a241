package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redacthist"
)

// summaryTimeout bounds one summarisation request.
const summaryTimeout = 2 * time.Minute

// maxRenderedPart caps the text of one part in a summarisation request: long tool outputs keep
// their head and tail.
const maxRenderedPart = 16 << 10

// summarySystemEN and summarySystemJA instruct the summariser. %d is the length target.
const summarySystemEN = `You maintain the running summary of a security analyst's conversation with an AI assistant about one security alert. The summary replaces the earlier turns in every later request, so whatever it leaves out is lost to the assistant.

Fold the conversation excerpt you are given into the previous summary (if any) and write the new summary. Keep:
- every indicator of compromise and identifier exactly as written: IP addresses, domains, URLs, hashes, e-mail addresses, account, project and resource IDs, user and role names, host names, process names, file paths, ports, timestamps;
- the findings and conclusions reached, with what supports them;
- the decisions taken and the actions done or recommended;
- the open questions and requests not yet answered.
Drop greetings, repetition and reasoning that led nowhere. Do not add anything that is not in the conversation. Keep redaction tokens such as [REDACTED_EMAIL] or [REDACTED_IP_k3v9q2m7xa] exactly as they are: each stands for a redacted value, equal tokens for equal values.
Write in the language the analyst writes in, under these headings: IOCs, Findings, Decisions, Open questions. Stay under about %d words. Reply with the summary only.`

const summarySystemJA = `あなたは、セキュリティアナリストと AI アシスタントが一つのセキュリティアラートについて交わした会話の「要約」を管理します。この要約は以降のすべてのリクエストで過去のやり取りの代わりに使われるため、要約に残らなかった情報はアシスタントから失われます。

与えられた会話の抜粋を、前回の要約（あれば）に統合して新しい要約を書いてください。次のものは必ず残してください:
- 侵害の痕跡（IOC）と識別子は書かれたとおりに: IP アドレス、ドメイン、URL、ハッシュ、メールアドレス、アカウント・プロジェクト・リソースの ID、ユーザー名・ロール名、ホスト名、プロセス名、ファイルパス、ポート、タイムスタンプ
- 得られた調査結果と結論、およびその根拠
- 決定事項と、実施済みまたは推奨された対応
- まだ回答されていない質問や依頼
挨拶、繰り返し、結論に至らなかった推論は省いてください。会話にないことは書かないでください。[REDACTED_EMAIL] や [REDACTED_IP_k3v9q2m7xa] のような墨消しトークンはそのまま残してください（同じトークンは同じ値を表します）。
日本語で、次の見出しを使って書いてください: IOC、調査結果、決定事項、未解決の質問。%d 字程度以内に収め、要約だけを返してください。`

// Compact summarises the older turns now, whatever their size, keeping the newest turn as it is
// (/compress), and saves. It returns how many leading contents the summary covers.
func (s *Session) Compact(ctx context.Context) (int, error) {
	covers, err := s.compact(ctx, nil, true)
	if err != nil {
		return covers, err
	}
	return covers, s.save(ctx)
}

// compact folds older turns into the history's summary. Automatically (force false) it keeps
// the newest turns that fit in keepShare of the budget and summarises the rest, when that rest
// is worth it; forced, it keeps at most the newest turn. pending is the exchange about to be
// sent (nil for /compress). It returns how many leading contents the summary now covers.
func (s *Session) compact(ctx context.Context, pending []*genai.Content, force bool) (int, error) {
	cs := s.syncLedger()
	h := s.history
	covers := s.summaryCovers()
	budget := s.budget()
	keep := cs.calib.Raw(int(keepShare*float64(budget))) - cs.sysTokens - estimateAll(pending)
	end := cs.ledger.Window(covers, keep)
	if force {
		end = max(end, cs.ledger.LastTurnStart(covers))
	}
	if end <= covers {
		return covers, ErrNothingToCompact
	}
	if !force && float64(cs.calib.Tokens(cs.ledger.Sum(covers, end))) < minFoldShare*float64(budget) {
		return covers, ErrNothingToCompact
	}

	prev := ""
	if covers > 0 {
		prev = s.summary().Text
	}
	chunk := cs.calib.Raw(budget / 2)
	var usage record.Usage
	for from := covers; from < end; {
		to := cs.ledger.ChunkEnd(from, end, chunk)
		text, u, err := s.summarise(ctx, prev, s.live[from:to], budget)
		usage = usage.Add(u)
		if err != nil {
			h.Usage = h.Usage.Add(usage)
			return covers, goerr.Wrap(err, "failed to summarise earlier turns", goerr.V("history_id", h.ID))
		}
		prev, from = text, to
	}
	// The model summarises the live contents; the stored summary is its redacted copy.
	s.liveSummary = &record.Summary{Text: prev, CoversCount: end, CreatedAt: s.opts.Now()}
	stored := *s.liveSummary
	h.Summary = &stored
	h.Usage = h.Usage.Add(usage)
	redacthist.Summary(s.redactor, h)
	s.logger().Info("summarised earlier turns", "history_id", h.ID, "covers", end, "of", len(s.live))
	return end, nil
}

// summarise asks the model to fold contents into the previous summary.
func (s *Session) summarise(ctx context.Context, prev string, contents []*genai.Content, budget int) (string, record.Usage, error) {
	ctx, cancel := context.WithTimeout(ctx, summaryTimeout)
	defer cancel()
	ja := isJapanese(prev) || isJapanese(analystText(contents))
	words := min(max(budget/12, 150), 3000)
	system := fmt.Sprintf(summarySystemEN, words)
	if ja {
		system = fmt.Sprintf(summarySystemJA, words*2)
	}
	var b strings.Builder
	if prev != "" {
		b.WriteString(pick(ja, "前回の要約:\n", "Previous summary:\n"))
		b.WriteString(prev)
		b.WriteString("\n\n")
	}
	b.WriteString(pick(ja, "要約に統合する会話:\n", "Conversation to fold in:\n"))
	renderExcerpt(&b, contents)

	cfg := modelcfg.For(s.opts.Model).Auxiliary(int32(min(max(budget/6, 512), 8192)), 0.2)
	cfg.SystemInstruction = genai.NewContentFromText(system, "")
	resp, err := modelcfg.Generate(ctx, s.opts.LLM, s.opts.Model, []*genai.Content{genai.NewContentFromText(b.String(), genai.RoleUser)}, cfg)
	if err != nil {
		return "", record.Usage{}, goerr.Wrap(err, "summary request failed", goerr.V("model", s.opts.Model))
	}
	var usage record.Usage
	if resp.UsageMetadata != nil {
		usage = usageOf(resp.UsageMetadata)
	}
	text := strings.TrimSpace(modelcfg.Text(resp))
	text = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(text, "```markdown"), "```"))
	if text == "" {
		return "", usage, goerr.New("the model returned an empty summary")
	}
	return text, usage, nil
}

func pick(ja bool, jaText, enText string) string {
	if ja {
		return jaText
	}
	return enText
}

// renderExcerpt writes contents as a plain-text transcript for the summariser; thoughts are
// left out and very long parts keep their head and tail.
func renderExcerpt(b *strings.Builder, contents []*genai.Content) {
	for _, c := range contents {
		if c == nil {
			continue
		}
		who := "[Analyst]"
		if c.Role == genai.RoleModel {
			who = "[Assistant]"
		}
		for _, p := range c.Parts {
			if p == nil || p.Thought {
				continue
			}
			switch {
			case p.Text != "":
				fmt.Fprintf(b, "%s %s\n", who, clipMiddle(p.Text))
			case p.FunctionCall != nil:
				fmt.Fprintf(b, "[Assistant calls %s] %s\n", p.FunctionCall.Name, clipMiddle(jsonText(p.FunctionCall.Args)))
			case p.FunctionResponse != nil:
				fmt.Fprintf(b, "[Result of %s] %s\n", p.FunctionResponse.Name, clipMiddle(jsonText(p.FunctionResponse.Response)))
			case p.ExecutableCode != nil:
				fmt.Fprintf(b, "[Assistant runs code] %s\n", clipMiddle(p.ExecutableCode.Code))
			case p.CodeExecutionResult != nil:
				fmt.Fprintf(b, "[Code output] %s\n", clipMiddle(p.CodeExecutionResult.Output))
			case p.InlineData != nil:
				fmt.Fprintf(b, "%s [attached %s, %d bytes]\n", who, p.InlineData.MIMEType, len(p.InlineData.Data))
			case p.FileData != nil:
				fmt.Fprintf(b, "%s [file %s]\n", who, p.FileData.FileURI)
			}
		}
	}
}

func jsonText(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(out)
}

// clipMiddle keeps the head and tail of a very long text, on rune boundaries.
func clipMiddle(s string) string {
	if len(s) <= maxRenderedPart {
		return s
	}
	head, tail := maxRenderedPart*3/4, maxRenderedPart/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	cut := len(s) - tail
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return s[:head] + fmt.Sprintf(" [... %d bytes left out ...] ", cut-head) + s[cut:]
}

// analystText joins the analyst's own words in contents.
func analystText(contents []*genai.Content) string {
	var b strings.Builder
	for _, c := range contents {
		if c == nil || c.Role == genai.RoleModel {
			continue
		}
		for _, p := range c.Parts {
			if p != nil && !p.Thought {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

// isJapanese reports whether s has kana: a Japanese conversation gets Japanese prompts.
func isJapanese(s string) bool {
	kana := 0
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) && r != 'ー' && r != '・' {
			if kana++; kana >= 2 {
				return true
			}
		}
	}
	return false
}
