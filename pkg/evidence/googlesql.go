package evidence

import (
	"strings"
)

// googleSQLRefused may not appear as words of a BigQuery query (outside strings, quoted names
// and comments): they write, change the session or run code. The dry run's statement type is
// checked too; this says why early and plainly, and holds where a dry run would not tell.
var googleSQLRefused = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "TRUNCATE": true,
	"CREATE": true, "DROP": true, "ALTER": true, "UNDROP": true, "REPLACE": true,
	"EXPORT": true, "LOAD": true, "CALL": true, "EXECUTE": true, "DECLARE": true, "SET": true,
	"BEGIN": true, "COMMIT": true, "ROLLBACK": true, "TRANSACTION": true, "GRANT": true,
	"REVOKE": true, "ASSERT": true, "RAISE": true,
}

// checkGoogleSQL admits one GoogleSQL statement that reads: it starts with SELECT or WITH (or
// an opening parenthesis before one), names none of googleSQLRefused, and nothing but blanks
// and comments follows its end.
func checkGoogleSQL(q string) error {
	words, err := googleSQLWords(q)
	if err != nil {
		return err
	}
	return admitReading(words, googleSQLRefused, "SELECT", "WITH")
}

// googleSQLWords are the bare words of q outside GoogleSQL's strings ('…', "…", triple-quoted,
// raw and bytes literals, with backslash escapes), quoted names (`…`) and comments (--, #,
// /* */); a ";" may only end the text. A literal or name left open is an error, not a word.
func googleSQLWords(q string) ([]string, error) {
	var words []string
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '-' && i+1 < len(q) && q[i+1] == '-', c == '#':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return words, nil
			}
			i += j + 1
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return nil, userErrorf("a comment is not closed")
			}
			i += j + 4
		case c == '\'' || c == '"' || c == '`':
			j, err := skipQuoted(q, i)
			if err != nil {
				return nil, err
			}
			i = j
		case c == ';':
			if w, err := googleSQLWords(q[i+1:]); err != nil || len(w) > 0 {
				return nil, userErrorf("one statement at a time")
			}
			return words, nil
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			// r'…', b'…', rb'…', br'…': a literal's prefix, not a word.
			if j < len(q) && (q[j] == '\'' || q[j] == '"') && isLiteralPrefix(q[i:j]) {
				k, err := skipQuoted(q, j)
				if err != nil {
					return nil, err
				}
				i = k
				continue
			}
			words = append(words, q[i:j])
			i = j
		default:
			i++
		}
	}
	return words, nil
}

func isLiteralPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "b", "rb", "br":
		return true
	}
	return false
}

// skipQuoted returns the index after the literal or quoted name opening at q[i]: triple quotes
// close only on triple quotes, and a backslash keeps the next byte from closing it (in raw
// literals too, as in Python, whose rules GoogleSQL's follow).
func skipQuoted(q string, i int) (int, error) {
	quote := q[i]
	delim := string(quote)
	if quote != '`' && strings.HasPrefix(q[i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	for j := i + len(delim); j < len(q); j++ {
		switch {
		case q[j] == '\\':
			j++
		case strings.HasPrefix(q[j:], delim):
			return j + len(delim), nil
		case q[j] == '\n' && len(delim) == 1 && quote != '`':
			return 0, userErrorf("a string is not closed on its line")
		}
	}
	if quote == '`' {
		return 0, userErrorf("a quoted name is not closed")
	}
	return 0, userErrorf("a string is not closed")
}
