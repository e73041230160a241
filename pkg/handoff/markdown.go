package handoff

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/alertchat/alertchat/pkg/termsafe"
	"github.com/alertchat/alertchat/pkg/transcript"
	"github.com/m-mizutani/goerr/v2"
)

// Markdown writes the report as a Markdown document that reads as it is in a ticket: plain
// GitHub tables, no HTML.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# %s\n\n", mdText(r.Title))
	p("- History: `%s`\n", r.HistoryID)

	p("\n## Alert\n\n")
	a := r.Alert
	if a.Missing {
		p("The alert `%s` is not in the store.\n", a.ID)
	} else {
		p("| field | value |\n|---|---|\n")
		row := func(k, v string) {
			if v == "" {
				v = "-"
			}
			p("| %s | %s |\n", k, cell(v))
		}
		row("ID", a.ID)
		row("Title", a.Title)
		row("Source", a.Source)
		row("Type", a.Type)
		row("Severity", a.Severity)
		status := a.Status
		if status == "" {
			status = "open"
		}
		row("Status", status)
		row("Time", deref(a.Time))
	}

	p("\n## Verdict\n\n")
	if v := r.Verdict; v != nil {
		p("**%s**, by %s at %s", mdText(strings.ReplaceAll(v.Verdict, "_", " ")), mdText(v.ResolvedBy), v.ResolvedAt)
		if v.Suggested {
			p(" (suggested by Gemini, confirmed)")
		}
		p(".\n")
		if v.Note != "" {
			p("\n")
			for _, line := range strings.Split(strings.TrimRight(v.Note, "\n"), "\n") {
				p(">%s\n", strings.TrimRight(" "+mdText(line), " "))
			}
		}
	} else {
		p("Open: no verdict recorded.\n")
	}
	if t := r.Triage; t != nil {
		p("\nTriage proposal: **%s**, confidence %.2f (%s, %s).\n", mdText(strings.ReplaceAll(t.Verdict, "_", " ")), t.Confidence, mdText(t.Model), t.At)
	}

	p("\n## Analysts\n\n")
	if len(r.Analysts) == 0 {
		p("No questions were asked.\n")
	}
	for _, an := range r.Analysts {
		p("- %s: %d question%s\n", mdText(an.Analyst), len(an.Questions), plural(len(an.Questions)))
	}

	p("\n## Timeline\n\n| time | event | who | what |\n|---|---|---|---|\n")
	for _, e := range r.Timeline {
		text := cell(e.Text)
		if e.Kind == "tool_call" {
			text = code(e.Text) // a call's arguments read as typed
		}
		p("| %s | %s | %s | %s |\n", orDash(deref(e.At)), strings.ReplaceAll(e.Kind, "_", " "), cell(orDash(e.Who)), text)
	}

	p("\n## Indicators\n\n")
	if len(r.Indicators) == 0 {
		p("None found.\n")
	} else {
		p("| type | value | seen in |\n|---|---|---|\n")
		for _, i := range r.Indicators {
			p("| %s | %s | %s |\n", i.Type, code(i.Value), cell(strings.Join(i.SeenIn, ", ")))
		}
		if n := r.redactedCount(); n > 0 {
			p("\n%d of them %s redacted in storage: a keyed token stands for the value.\n", n, isAre(n))
		}
	}

	p("\n## Evidence\n\n")
	if len(r.Evidence) == 0 {
		p("No evidence tools were called.\n")
	}
	for _, e := range r.Evidence {
		p("- %s (%s)\n", code(e.Text), e.Source)
	}

	p("\n## Knowledge\n\n")
	if len(r.Knowledge) == 0 {
		p("No team knowledge was given to this investigation.\n")
	}
	for _, k := range r.Knowledge {
		p("- [%s] %s (%s)\n", mdText(k.ID), mdText(k.Text), mdText(k.Author))
	}
	if len(r.Lessons) > 0 {
		p("\nLessons recorded:\n\n")
		for _, l := range r.Lessons {
			p("- %s\n", mdText(l))
		}
	}

	p("\n## Next steps\n\n")
	if len(r.NextSteps) == 0 {
		p("None proposed.\n")
	}
	for _, s := range r.NextSteps {
		p("- %s\n", mdText(s))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return goerr.Wrap(err, "failed to write report")
	}
	return nil
}

// redactedCount is how many of the indicators are keyed tokens.
func (r *Report) redactedCount() int {
	n := 0
	for _, i := range r.Indicators {
		if i.Redacted {
			n++
		}
	}
	return n
}

// mdText keeps stored text from becoming markup it did not mean: HTML and table pipes.
func mdText(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", "|", `\|`).Replace(s)
}

// cell is text in a table cell: one line, pipes escaped.
func cell(s string) string { return mdText(termsafe.Line(s)) }

// code is a value as a code span; a pipe is escaped even there, as GitHub's tables require
// (the fence, backticks only, has none).
func code(s string) string {
	return strings.ReplaceAll(transcript.InlineCode(s), "|", `\|`)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itoa(n int) string { return strconv.Itoa(n) }

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
