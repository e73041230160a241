package evidence

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/tool"
)

// Argument bounds.
const (
	DefaultListLimit  = 100
	DefaultGrepLimit  = 100
	DefaultQueryLimit = 200
	MaxLimit          = 1000
)

// Tools are list_evidence, grep_evidence and query_evidence over s: built-in, read-only. A Set
// of BigQuery datasets only has no files to grep, so no grep_evidence.
func (s *Set) Tools() []tool.Tool {
	if len(s.folders) == 0 {
		return []tool.Tool{listTool{s}, queryTool{s}}
	}
	return []tool.Tool{listTool{s}, grepTool{s}, queryTool{s}}
}

func obj(props map[string]*genai.Schema, required ...string) *genai.Schema {
	return &genai.Schema{Type: genai.TypeObject, Properties: props, Required: required}
}

func schema(t genai.Type, desc string) *genai.Schema {
	return &genai.Schema{Type: t, Description: desc}
}

// failure is an error as the model reads it. Paths that leave a folder get the one answer
// ErrOutside, whatever the reason; the machine's own failures say little.
func failure(err error) map[string]any {
	var ue *UserError
	var ae tool.ArgError
	switch {
	case errors.Is(err, errOutside):
		return tool.Error(ErrOutside)
	case errors.Is(err, errNotFound):
		return tool.Error(errNotFound.Error())
	case errors.As(err, &ue):
		return tool.Error(ue.Msg)
	case errors.As(err, &ae):
		return tool.Error(ae.Error())
	case errors.Is(err, context.Canceled):
		return tool.Error("cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return tool.Error("timed out")
	}
	return tool.Error("the evidence cannot be read: " + err.Error())
}

// boolArg is an optional boolean argument (a JSON bool, or "true"/"false").
func boolArg(args map[string]any, name string) (bool, error) {
	switch v := args[name].(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			return true, nil
		case "false", "":
			return false, nil
		}
	}
	return false, tool.ArgError(fmt.Sprintf("argument %q must be true or false", name))
}

// rawString is a string argument kept as given (a pattern's spaces matter).
func rawString(args map[string]any, name string, required bool) (string, error) {
	v, ok := args[name]
	if !ok || v == nil {
		if required {
			return "", tool.ArgError(fmt.Sprintf("missing argument %q", name))
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", tool.ArgError(fmt.Sprintf("argument %q must be a string, not %T", name, v))
	}
	if required && s == "" {
		return "", tool.ArgError(fmt.Sprintf("argument %q is empty", name))
	}
	return s, nil
}

func strs(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}

type listTool struct{ s *Set }

func (t listTool) Declaration() *genai.FunctionDeclaration {
	desc := "List the files of the evidence folders the analyst gave: path, size, kind (ndjson, json, csv, zeek, w3c, " +
		"parquet, evtx (Windows event logs), text; gzip is read through) and, for structured files, the SQL table and its columns for query_evidence."
	if len(t.s.datasets) > 0 {
		desc += " BigQuery datasets (" + strings.Join(t.s.Datasets(), ", ") + ") are listed as their tables: kind bigquery, " +
			"path bq://PROJECT.DATASET/TABLE, the table's full name, its columns with their types, rows and bytes."
	}
	return &genai.FunctionDeclaration{
		Name:        "list_evidence",
		Description: desc,
		Parameters: obj(map[string]*genai.Schema{
			"path":  schema(genai.TypeString, "a folder or file to list, relative to the evidence folder, or bq://PROJECT.DATASET (default: everything)"),
			"limit": schema(genai.TypeInteger, "most files listed (default 100)"),
		}),
	}
}

func (t listTool) Call(ctx context.Context, args map[string]any) map[string]any {
	p, err := rawString(args, "path", false)
	if err != nil {
		return failure(err)
	}
	limit, err := tool.Int(args, "limit", DefaultListLimit, 1, MaxLimit)
	if err != nil {
		return failure(err)
	}
	files, truncated, err := t.s.List(ctx, strings.TrimSpace(p), limit)
	if err != nil {
		return failure(err)
	}
	out := make([]any, 0, len(files))
	for _, f := range files {
		m := map[string]any{"path": f.Path, "bytes": f.Bytes, "kind": f.Kind}
		if f.Table != "" {
			m["table"] = f.Table
			m["columns"] = strs(f.Columns)
			if f.Types != nil {
				m["types"] = strs(f.Types)
			}
			switch {
			case f.Indexed && f.Kind == "bigquery":
				m["rows"] = f.Rows
			case f.Indexed:
				m["rows"] = f.Rows
				m["skipped"] = f.Skipped
			}
		}
		if f.Error != "" {
			m["error"] = f.Error
		}
		out = append(out, m)
	}
	return map[string]any{"files": out, "truncated": truncated}
}

type grepTool struct{ s *Set }

func (grepTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name: "grep_evidence",
		Description: "Search the text of the evidence files (gzip read through) for lines matching an RE2 regular " +
			"expression; returns each matching line with its path and line number.",
		Parameters: obj(map[string]*genai.Schema{
			"pattern":     schema(genai.TypeString, `RE2 regular expression, e.g. 203\.0\.113\.7`),
			"path":        schema(genai.TypeString, "glob of the files to search, relative (e.g. dns/*.ndjson; default: every file)"),
			"ignore_case": schema(genai.TypeBoolean, "match regardless of case (Unicode case folding)"),
			"context":     schema(genai.TypeInteger, "lines of context before and after each match, 0-5 (default 0)"),
			"limit":       schema(genai.TypeInteger, "most matches returned (default 100)"),
		}, "pattern"),
	}
}

func (t grepTool) Call(ctx context.Context, args map[string]any) map[string]any {
	var o GrepOptions
	var err error
	if o.Pattern, err = rawString(args, "pattern", true); err != nil {
		return failure(err)
	}
	if o.Path, err = rawString(args, "path", false); err != nil {
		return failure(err)
	}
	o.Path = strings.TrimSpace(o.Path)
	if o.IgnoreCase, err = boolArg(args, "ignore_case"); err != nil {
		return failure(err)
	}
	if o.Context, err = tool.Int(args, "context", 0, 0, MaxContext); err != nil {
		return failure(err)
	}
	if o.Limit, err = tool.Int(args, "limit", DefaultGrepLimit, 1, MaxLimit); err != nil {
		return failure(err)
	}
	res, err := t.s.Grep(ctx, o)
	if err != nil {
		return failure(err)
	}
	ms := make([]any, 0, len(res.Matches))
	for _, m := range res.Matches {
		x := map[string]any{"path": m.Path, "line": m.Line, "text": m.Text}
		if o.Context > 0 {
			x["before"], x["after"] = strs(m.Before), strs(m.After)
		}
		ms = append(ms, x)
	}
	return map[string]any{"matches": ms, "files_searched": res.FilesSearched, "bytes_searched": res.BytesSearched, "truncated": res.Truncated}
}

type queryTool struct{ s *Set }

func (t queryTool) Declaration() *genai.FunctionDeclaration {
	if len(t.s.datasets) > 0 {
		return t.bigQueryDeclaration()
	}
	return &genai.FunctionDeclaration{
		Name: "query_evidence",
		Description: "Run one read-only SQL query (SQLite dialect, with its JSON functions such as " +
			"json_extract(userIdentity, '$.userName')) over the structured evidence files: each NDJSON, JSON, CSV, " +
			"Parquet, Zeek or W3C (IIS, CloudFront) log file is a table (list_evidence names them), one row per record, its " +
			"top-level fields as columns, nested values and Zeek sets as JSON text. A Windows event log (.evtx) is a table " +
			"of EventID, TimeCreated, Computer, Channel, Provider, EventRecordID, Level, UserID and EventData, the event's " +
			"named data as a JSON object: json_extract(EventData, '$.Image'). Zeek and W3C columns keep their " +
			`dots, dashes and parentheses: quote them, "id.orig_h", "c-ip", "cs(User-Agent)".`,
		Parameters: obj(map[string]*genai.Schema{
			"sql":   schema(genai.TypeString, "one SELECT or WITH query"),
			"limit": schema(genai.TypeInteger, "most rows returned (default 200)"),
		}, "sql"),
	}
}

// bigQueryDeclaration is query_evidence where BigQuery datasets were given: GoogleSQL there,
// SQLite over the folders' tables.
func (t queryTool) bigQueryDeclaration() *genai.FunctionDeclaration {
	desc := "Run one read-only GoogleSQL query on a BigQuery dataset the analyst gave (" + strings.Join(t.s.Datasets(), ", ") +
		"), with it as the default dataset (list_evidence names its tables and columns). BigQuery bills the bytes of the " +
		"columns a query reads: select only the columns needed, filter on the partitioning time column with a narrow " +
		"range, and prefer aggregates (COUNT, GROUP BY, APPROX_TOP_COUNT) to reading rows; rows are capped by limit, so " +
		"paging with OFFSET does not help. A query that would scan more than " + bqSize(t.s.bqMaxBytes) +
		" is refused with its estimate. The result says the bytes scanned."
	props := map[string]*genai.Schema{
		"sql":     schema(genai.TypeString, "one SELECT or WITH query"),
		"limit":   schema(genai.TypeInteger, "most rows returned (default 200)"),
		"dataset": schema(genai.TypeString, "the dataset to query, PROJECT.DATASET"),
	}
	if len(t.s.folders) > 0 {
		desc += " Without dataset, the query runs over the evidence folders' files instead, in SQLite's dialect: each NDJSON, " +
			"JSON, CSV, Parquet, Zeek, W3C or Windows event log file is a table (list_evidence names them), nested values " +
			`as JSON text (json_extract(col, '$.field')); quote Zeek and W3C columns: "id.orig_h", "c-ip".`
		props["dataset"] = schema(genai.TypeString, "PROJECT.DATASET to run GoogleSQL on BigQuery; leave out to query the folders' files")
	}
	return &genai.FunctionDeclaration{Name: "query_evidence", Description: desc, Parameters: obj(props, "sql")}
}

func (t queryTool) Call(ctx context.Context, args map[string]any) map[string]any {
	q, err := rawString(args, "sql", true)
	if err != nil {
		return failure(err)
	}
	limit, err := tool.Int(args, "limit", DefaultQueryLimit, 1, MaxLimit)
	if err != nil {
		return failure(err)
	}
	ds, err := rawString(args, "dataset", false)
	if err != nil {
		return failure(err)
	}
	if strings.TrimSpace(ds) != "" || (len(t.s.folders) == 0 && len(t.s.datasets) > 0) {
		res, err := t.s.QueryBigQuery(ctx, ds, q, limit)
		if err != nil {
			return failure(err)
		}
		rows := make([]any, len(res.Rows))
		for i, r := range res.Rows {
			rows[i] = r
		}
		return map[string]any{"columns": strs(res.Columns), "rows": rows, "truncated": res.Truncated,
			"dataset": res.Dataset, "bytes_scanned": res.BytesScanned}
	}
	res, err := t.s.Query(ctx, q, limit)
	if err != nil {
		return failure(err)
	}
	rows := make([]any, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = r
	}
	return map[string]any{"columns": strs(res.Columns), "rows": rows, "truncated": res.Truncated}
}
