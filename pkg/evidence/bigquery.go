package evidence

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/alertchat/alertchat/pkg/format"
)

// A BigQuery dataset (--evidence bq://PROJECT.DATASET) is evidence too: list_evidence lists its
// tables, query_evidence runs GoogleSQL on it. The model's SQL is untrusted and the analyst
// pays for what it scans, so a query runs only when:
//   - its text is one statement that reads (checkGoogleSQL), and the dry run says SELECT;
//   - every table the dry run reports it reads is in a dataset the analyst gave;
//   - the dry run's estimate is within the byte limit (--bq-max-bytes), which is also the
//     job's maximumBytesBilled, so a table that grows between the dry run and the run is
//     still capped by BigQuery itself.
const bqScheme = "bq://"

// DefaultBQMaxBytes is --bq-max-bytes' default: 10 GiB, about six cents on demand.
const DefaultBQMaxBytes int64 = 10 << 30

// OnDemandUSDPerTiB is BigQuery's on-demand price per TiB scanned, for estimates only (a
// project on capacity pricing pays otherwise).
const OnDemandUSDPerTiB = 6.25

// maxReferencedTables is how many tables a dry run lists at most: a query that reads more
// cannot be checked, so it does not run.
const maxReferencedTables = 50

// IsDataset reports whether an --evidence value names a BigQuery dataset (bq://PROJECT.DATASET).
func IsDataset(s string) bool { return strings.HasPrefix(s, bqScheme) }

var (
	// A project ID, optionally domain-scoped (example.com:project).
	bqProject = regexp.MustCompile(`^([a-z0-9][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	bqDataset = regexp.MustCompile(`^[A-Za-z0-9_]+$`) // and at most 1,024 bytes
)

// parseDataset splits bq://PROJECT.DATASET: the dataset is after the last dot (a dataset name
// has none; a domain-scoped project does).
func parseDataset(s string) (project, dataset string, err error) {
	rest := strings.TrimSuffix(strings.TrimPrefix(s, bqScheme), "/")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return "", "", &DirError{Dir: s, Reason: "is not bq://PROJECT.DATASET"}
	}
	project, dataset = rest[:i], rest[i+1:]
	if !bqProject.MatchString(project) {
		return "", "", &DirError{Dir: s, Reason: "does not name a valid project"}
	}
	if !bqDataset.MatchString(dataset) || len(dataset) > 1024 {
		return "", "", &DirError{Dir: s, Reason: "does not name a valid dataset"}
	}
	return project, dataset, nil
}

// bqTable is a table of a dataset as list_evidence shows it.
type bqTable struct {
	Name    string
	Columns []string
	Types   []string
	// Rows and Bytes are known when Counted.
	Counted     bool
	Rows, Bytes int64
}

// bqTableRef names a table a query reads.
type bqTableRef struct{ Project, Dataset, Table string }

// bqEstimate is what a dry run says of a query.
type bqEstimate struct {
	Bytes         int64
	StatementType string
	Referenced    []bqTableRef
}

// bqRows is a query's result.
type bqRows struct {
	Columns      []string
	Rows         [][]any
	Truncated    bool
	BytesScanned int64
}

// bqEngine is what a dataset needs of BigQuery (bqclient.go is the real one; tests have a fake
// to check the guard's arithmetic, which the emulator cannot: it ignores maximumBytesBilled).
type bqEngine interface {
	// check costs one call and fails when the dataset is missing or cannot be read.
	check(ctx context.Context) error
	tables(ctx context.Context) ([]bqTable, error)
	dryRun(ctx context.Context, sql string) (bqEstimate, error)
	// run runs sql with maxBytes as its maximumBytesBilled, reading at most limit rows.
	run(ctx context.Context, sql string, maxBytes int64, limit int) (*bqRows, error)
	close() error
}

// bqDatasetSource is one dataset of a Set.
type bqDatasetSource struct {
	project, dataset string
	eng              bqEngine
}

// name is PROJECT.DATASET, as the model names the dataset.
func (d *bqDatasetSource) name() string { return d.project + "." + d.dataset }

// url is bq://PROJECT.DATASET.
func (d *bqDatasetSource) url() string { return bqScheme + d.name() }

// BQQueryResult is query_evidence's answer from BigQuery.
type BQQueryResult struct {
	QueryResult
	Dataset      string
	BytesScanned int64
}

// Datasets are the BigQuery datasets of the Set, as PROJECT.DATASET.
func (s *Set) Datasets() []string {
	out := make([]string, len(s.datasets))
	for i, d := range s.datasets {
		out[i] = d.name()
	}
	return out
}

// BigQueryBytes is the bytes the Set's BigQuery queries scanned so far.
func (s *Set) BigQueryBytes() int64 { return s.bqBytes.Load() }

// dataset finds the dataset named PROJECT.DATASET (or bq://…); "" is the only one there is.
func (s *Set) dataset(name string) (*bqDatasetSource, error) {
	name = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(name), bqScheme), "/")
	if name == "" {
		if len(s.datasets) == 1 {
			return s.datasets[0], nil
		}
		return nil, userErrorf("name the dataset to query: one of %s", strings.Join(s.Datasets(), ", "))
	}
	for _, d := range s.datasets {
		if strings.EqualFold(d.name(), name) {
			return d, nil
		}
	}
	if len(s.datasets) == 0 {
		return nil, userErrorf("no BigQuery dataset was given")
	}
	return nil, userErrorf("%s is not a dataset given; they are: %s", name, strings.Join(s.Datasets(), ", "))
}

// QueryBigQuery runs one reading GoogleSQL statement on the dataset named (PROJECT.DATASET; ""
// when there is one), with it as the default dataset, after the checks above; at most limit rows.
func (s *Set) QueryBigQuery(ctx context.Context, dataset, q string, limit int) (*BQQueryResult, error) {
	d, err := s.dataset(dataset)
	if err != nil {
		return nil, err
	}
	if err := checkGoogleSQL(q); err != nil {
		return nil, err
	}
	est, err := d.eng.dryRun(ctx, q)
	if err != nil {
		return nil, err
	}
	if t := strings.ToUpper(est.StatementType); t != "" && t != "SELECT" {
		return nil, userErrorf("only reading queries run: BigQuery reads this as %s", t)
	}
	if err := s.confined(est.Referenced); err != nil {
		return nil, err
	}
	if est.Bytes > s.bqMaxBytes {
		return nil, userErrorf("the query would scan %s, above the limit of %s (--bq-max-bytes): select fewer columns, "+
			"narrow the time range on a partitioned column, or aggregate", bqSize(est.Bytes), bqSize(s.bqMaxBytes))
	}
	res, err := d.eng.run(ctx, q, s.bqMaxBytes, limit)
	if res != nil {
		s.bqBytes.Add(res.BytesScanned)
	}
	if err != nil {
		return nil, err
	}
	return &BQQueryResult{
		QueryResult:  QueryResult{Columns: res.Columns, Rows: res.Rows, Truncated: res.Truncated},
		Dataset:      d.name(),
		BytesScanned: res.BytesScanned,
	}, nil
}

// confined refuses a query that reads a table outside the datasets given, or more tables than
// a dry run lists.
func (s *Set) confined(refs []bqTableRef) error {
	if len(refs) >= maxReferencedTables {
		return userErrorf("the query reads %d tables or more, too many to check: read fewer", maxReferencedTables)
	}
	for _, r := range refs {
		in := slices.ContainsFunc(s.datasets, func(d *bqDatasetSource) bool {
			return d.project == r.Project && strings.EqualFold(d.dataset, r.Dataset)
		})
		if !in {
			return userErrorf("the query reads %s.%s.%s, outside the datasets given (%s)",
				r.Project, r.Dataset, r.Table, strings.Join(s.Datasets(), ", "))
		}
	}
	return nil
}

// bqSize says a byte count in binary units (BigQuery's own): "1.5 GiB".
func bqSize(n int64) string {
	const unit = 1024
	if n < unit {
		return format.Plural(int(n), "byte", "bytes")
	}
	f, u := float64(n)/unit, 0
	for f >= unit && u < 4 {
		f /= unit
		u++
	}
	return fmt.Sprintf("%.1f %s", f, []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[u])
}

// BQCost says what bytes scanned cost on demand: "about $0.01 at $6.25/TiB on demand".
func BQCost(bytes int64) string {
	usd := float64(bytes) / (1 << 40) * OnDemandUSDPerTiB
	return fmt.Sprintf("%s scanned, about $%.2f at $%.2f/TiB on demand", bqSize(bytes), usd, OnDemandUSDPerTiB)
}

// listDatasets describes the tables of the datasets under p ("" for all, else bq://PROJECT.DATASET
// or a table's path in it), at most limit entries in all.
func (s *Set) listDatasets(ctx context.Context, p string, limit int) ([]FileInfo, bool, error) {
	name, table, _ := strings.Cut(strings.TrimPrefix(p, bqScheme), "/")
	var out []FileInfo
	for _, d := range s.datasets {
		if p != "" && !strings.EqualFold(name, d.name()) {
			continue // only the dataset named is asked for its tables
		}
		ts, err := d.eng.tables(ctx)
		if err != nil {
			return nil, false, err
		}
		for _, t := range ts {
			if table != "" && !strings.EqualFold(table, t.Name) {
				continue
			}
			path := d.url() + "/" + t.Name
			if len(out) == limit {
				return out, true, nil
			}
			fi := FileInfo{Path: path, Kind: "bigquery", Table: "`" + d.name() + "." + t.Name + "`",
				Columns: t.Columns, Types: t.Types, Bytes: t.Bytes}
			if t.Counted {
				fi.Indexed, fi.Rows = true, t.Rows
			}
			out = append(out, fi)
		}
	}
	return out, false, nil
}

// bqError is a BigQuery failure as the model is told it: BigQuery's own message.
func bqError(err error) error {
	var ue *UserError
	if errors.As(err, &ue) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &UserError{Msg: "BigQuery: " + bqMessage(err)}
}
