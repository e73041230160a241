// Command cjkeval compares ways of indexing Japanese, Chinese and Korean text for search on the
// search set in testdata/search-cjk: each method's text goes into an SQLite FTS5 table (as the
// local store's does) and is ranked with bm25, title weighted 4 to 1 over the body. It prints
// precision at 1 and 5, the index size and the tokenizing time of each method. It is a module
// of its own so that the analyser it measures never enters alertchat's build.
//
//	cd internal/cjkeval && go run . ../../testdata/search-cjk
package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome/v2/tokenizer"
	_ "modernc.org/sqlite"

	"github.com/alertchat/alertchat/pkg/store/index"
)

type history struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Turns []string `json:"turns"`
}

type query struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// method turns stored text into what FTS5's unicode61 tokenizer indexes, and a query into an
// FTS5 MATCH expression.
type method struct {
	name  string
	text  func(string) string
	match func(string) string
}

func quote(terms []string) string {
	return `"` + strings.ReplaceAll(strings.Join(terms, " "), `"`, `""`) + `"`
}

func main() {
	dir := "../../testdata/search-cjk"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	hs := readJSONL[history](filepath.Join(dir, "histories.jsonl"))
	qs := readJSONL[query](filepath.Join(dir, "queries.jsonl"))
	kt, err := tokenizer.New(ipa.Dict(), tokenizer.OmitBosEos())
	if err != nil {
		panic(err)
	}
	kagome := func(base bool) func(string) []string {
		return func(s string) []string {
			var out []string
			for _, tk := range kt.Analyze(s, tokenizer.Search) {
				w := tk.Surface
				if base {
					if b, ok := tk.BaseForm(); ok && b != "*" && b != "" {
						w = b
					}
				}
				if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
					continue
				}
				out = append(out, strings.ToLower(w))
			}
			return out
		}
	}
	ws := func(f func(string) []string) func(string) string {
		// Words joined by a separator unicode61 splits on; a word with inner punctuation
		// would be split further, as in the store.
		return func(s string) string { return strings.Join(f(s), " ") }
	}
	phrasesOf := func(f func(string) []string) func(string) string {
		return func(q string) string {
			var parts []string
			for _, fld := range strings.Fields(q) {
				if t := f(fld); len(t) > 0 {
					parts = append(parts, quote(t))
				}
			}
			return strings.Join(parts, " OR ")
		}
	}
	methods := []method{
		{"unicode61 words (before)", func(s string) string { return s }, func(q string) string {
			var parts []string
			for _, fld := range strings.Fields(q) {
				parts = append(parts, quote([]string{fld}))
			}
			return strings.Join(parts, " OR ")
		}},
		{"character bigrams (chosen)", index.Segmented, func(q string) string {
			var parts []string
			for _, p := range index.Phrases(q) {
				e := quote(p)
				if len(p) == 1 && len([]rune(p[0])) == 1 && index.IsCJK([]rune(p[0])[0]) {
					e += "*"
				}
				parts = append(parts, e)
			}
			return strings.Join(parts, " OR ")
		}},
		{"kagome ipa, surface", ws(kagome(false)), phrasesOf(kagome(false))},
		{"kagome ipa, base form", ws(kagome(true)), phrasesOf(kagome(true))},
	}
	fmt.Printf("%d histories, %d queries\n\n", len(hs), len(qs))
	fmt.Println("| method | P@1 | P@5 | queries with P@1 = 0 | FTS5 index | distinct terms | terms/history | tokenize |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, m := range methods {
		run(m, hs, qs)
	}
}

func run(m method, hs []history, qs []query) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	must(db.Exec(`CREATE VIRTUAL TABLE f USING fts5(id UNINDEXED, title, body, tokenize = "unicode61 tokenchars '_'")`))
	must(db.Exec(`CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row')`))
	var bytes int
	start := time.Now()
	type row struct{ id, title, body string }
	var rows []row
	for _, h := range hs {
		body := strings.Join(h.Turns, "\n")
		bytes += len(h.Title) + len(body)
		rows = append(rows, row{h.ID, m.text(h.Title), m.text(body)})
	}
	tok := time.Since(start)
	for _, r := range rows {
		must(db.Exec(`INSERT INTO f (id, title, body) VALUES (?, ?, ?)`, r.id, r.title, r.body))
	}
	var p1, p5 float64
	var missed []string
	for _, q := range qs {
		expr := m.match(q.Query)
		var got []string
		if expr != "" {
			rs, err := db.Query(`SELECT id FROM f WHERE f MATCH ? ORDER BY bm25(f, 0, 4, 1) LIMIT 5`, expr)
			if err != nil {
				panic(fmt.Sprint(q.Query, expr, err))
			}
			for rs.Next() {
				var id string
				must(nil, rs.Scan(&id))
				got = append(got, id)
			}
			rs.Close()
		}
		a := precision(1, got, q.Relevant)
		p1 += a
		p5 += precision(5, got, q.Relevant)
		if a == 0 {
			missed = append(missed, q.Query)
		}
	}
	var size, terms int
	must(nil, db.QueryRow(`SELECT sum(length(block)) FROM f_data`).Scan(&size))
	must(nil, db.QueryRow(`SELECT count(*) FROM v`).Scan(&terms))
	perDoc := 0
	for _, r := range rows {
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(r.title+" "+r.body), func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
		}) {
			seen[w] = true
		}
		perDoc += len(seen)
	}
	n := float64(len(qs))
	fmt.Printf("| %s | %.3f | %.3f | %s | %.1f KB | %d | %.1f | %.1f MB/s |\n", m.name, p1/n, p5/n, strings.Join(missed, " "),
		float64(size)/1024, terms, float64(perDoc)/float64(len(rows)), float64(bytes)/tok.Seconds()/1e6)
}

func precision(k int, got, relevant []string) float64 {
	n := min(k, len(relevant))
	if n == 0 {
		return 0
	}
	hit := 0
	for _, id := range got[:min(k, len(got))] {
		if slices.Contains(relevant, id) {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

func readJSONL[T any](path string) []T {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			panic(err)
		}
		out = append(out, v)
	}
	return out
}

func must(_ any, err error) {
	if err != nil {
		panic(err)
	}
}
