package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
)

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc
}

// table prints rows aligned for a terminal, or tab-separated (no header) for a pipe.
type table struct {
	w      io.Writer
	pretty bool
	tw     *tabwriter.Writer
}

func newTable(w io.Writer, pretty bool, header ...string) *table {
	t := &table{w: w, pretty: pretty}
	if pretty {
		t.tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(t.tw, strings.Join(header, "\t"))
	}
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = cleanCell(c)
	}
	line := strings.Join(cells, "\t")
	if t.pretty {
		fmt.Fprintln(t.tw, line)
		return
	}
	fmt.Fprintln(t.w, line)
}

func (t *table) flush() {
	if t.tw != nil {
		_ = t.tw.Flush()
	}
}

// cleanCell keeps a cell on one line and free of control characters.
func cleanCell(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// relativeTime says how long ago t was, for people.
func relativeTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
