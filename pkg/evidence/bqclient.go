package evidence

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sort"
	"sync"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/m-mizutani/goerr/v2"
)

const (
	// BQQueryTimeout bounds a BigQuery query: the job is cancelled past it. BigQuery is slower
	// to start than a local index, so it has more time than a folder's query.
	BQQueryTimeout = 2 * time.Minute
	// bqCountsAtOnce is how many tables' row counts are asked at the same time when the dataset's
	// __TABLES__ cannot be read (an emulator).
	bqCountsAtOnce = 8
	// bqMaxTables bounds a dataset's listing.
	bqMaxTables = 2000
)

// clientEngine is bqEngine on the BigQuery client, for one dataset. Jobs run in the dataset's
// project, labelled so that the analyst's billing export can tell alertchat's queries.
type clientEngine struct {
	c                *bigquery.Client
	project, dataset string

	mu     sync.Mutex
	cached []bqTable
}

func newClientEngine(c *bigquery.Client, project, dataset string) *clientEngine {
	return &clientEngine{c: c, project: project, dataset: dataset}
}

// close closes the client, made for this dataset alone.
func (e *clientEngine) close() error { return e.c.Close() }

func (e *clientEngine) check(ctx context.Context) error {
	_, err := e.c.DatasetInProject(e.project, e.dataset).Metadata(ctx)
	return err
}

func (e *clientEngine) query(sql string) *bigquery.Query {
	q := e.c.Query(sql)
	q.DefaultProjectID, q.DefaultDatasetID = e.project, e.dataset
	q.Labels = map[string]string{"client": "alertchat"}
	return q
}

// tables lists the dataset's tables with their columns in one query of INFORMATION_SCHEMA
// (never one call per table), and their row counts from __TABLES__ in a second one. The
// listing is kept for the chat: a dataset's schema does not change under an investigation.
func (e *clientEngine) tables(ctx context.Context) ([]bqTable, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cached != nil {
		return e.cached, nil
	}
	it, err := e.query(fmt.Sprintf("SELECT table_name, column_name, data_type FROM `%s`.%s"+
		".INFORMATION_SCHEMA.COLUMNS ORDER BY table_name, ordinal_position", e.project, e.dataset)).Read(ctx)
	if err != nil {
		return nil, bqError(err)
	}
	var out []bqTable
	byName := map[string]int{}
	err = eachRow(it, func(row []bigquery.Value) bool {
		if len(row) < 3 {
			return true
		}
		name, col, typ := fmt.Sprint(row[0]), fmt.Sprint(row[1]), fmt.Sprint(row[2])
		i, ok := byName[name]
		if !ok {
			if len(out) == bqMaxTables {
				return true
			}
			i = len(out)
			byName[name] = i
			out = append(out, bqTable{Name: name})
		}
		out[i].Columns = append(out[i].Columns, col)
		out[i].Types = append(out[i].Types, typ)
		return true
	})
	if err != nil {
		return nil, bqError(err)
	}
	if err := e.countFromMeta(ctx, out, byName); err != nil {
		e.countEach(ctx, out)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	e.cached = out
	return out, nil
}

// countFromMeta fills the row counts and sizes from the dataset's __TABLES__ meta-table.
func (e *clientEngine) countFromMeta(ctx context.Context, out []bqTable, byName map[string]int) error {
	it, err := e.query(fmt.Sprintf("SELECT table_id, row_count, size_bytes FROM `%s.%s.__TABLES__`", e.project, e.dataset)).Read(ctx)
	if err != nil {
		return err
	}
	return eachRow(it, func(row []bigquery.Value) bool {
		if len(row) < 3 {
			return true
		}
		if i, ok := byName[fmt.Sprint(row[0])]; ok {
			rows, _ := row[1].(int64)
			size, _ := row[2].(int64)
			out[i].Counted, out[i].Rows, out[i].Bytes = true, rows, size
		}
		return true
	})
}

// countEach asks each table's metadata, a few at a time: where __TABLES__ is not served.
func (e *clientEngine) countEach(ctx context.Context, out []bqTable) {
	sem := make(chan struct{}, bqCountsAtOnce)
	var wg sync.WaitGroup
	for i := range out {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			md, err := e.c.DatasetInProject(e.project, e.dataset).Table(out[i].Name).Metadata(ctx)
			if err == nil {
				out[i].Counted, out[i].Rows, out[i].Bytes = true, int64(md.NumRows), md.NumBytes
			}
		})
	}
	wg.Wait()
}

func (e *clientEngine) dryRun(ctx context.Context, sql string) (bqEstimate, error) {
	q := e.query(sql)
	q.DryRun = true
	job, err := q.Run(ctx)
	if err != nil {
		return bqEstimate{}, bqError(err)
	}
	st := job.LastStatus()
	if st == nil || st.Statistics == nil {
		return bqEstimate{}, &UserError{Msg: "BigQuery: the dry run returned no estimate"}
	}
	if err := st.Err(); err != nil {
		return bqEstimate{}, bqError(err)
	}
	est := bqEstimate{Bytes: st.Statistics.TotalBytesProcessed}
	if qs, ok := st.Statistics.Details.(*bigquery.QueryStatistics); ok {
		est.StatementType = qs.StatementType
		for _, t := range qs.ReferencedTables {
			est.Referenced = append(est.Referenced, bqTableRef{Project: t.ProjectID, Dataset: t.DatasetID, Table: t.TableID})
		}
	}
	return est, nil
}

func (e *clientEngine) run(ctx context.Context, sql string, maxBytes int64, limit int) (*bqRows, error) {
	ctx, cancel := context.WithTimeout(ctx, BQQueryTimeout)
	defer cancel()
	q := e.query(sql)
	q.MaxBytesBilled = maxBytes
	q.JobTimeout = BQQueryTimeout
	job, err := q.Run(ctx)
	if err != nil {
		return nil, bqError(err)
	}
	st, err := job.Wait(ctx)
	if err != nil {
		if ctx.Err() != nil {
			_ = job.Cancel(context.WithoutCancel(ctx))
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, userErrorf("timed out after %s; the job was cancelled", BQQueryTimeout)
			}
			return nil, ctx.Err()
		}
		return nil, bqError(err)
	}
	res := &bqRows{Rows: [][]any{}}
	if st.Statistics != nil {
		res.BytesScanned = st.Statistics.TotalBytesProcessed
	}
	if err := st.Err(); err != nil {
		return res, bqError(err)
	}
	it, err := job.Read(ctx)
	if err != nil {
		return res, bqError(err)
	}
	it.PageInfo().MaxSize = min(limit+1, 1000)
	b := newRowBudget(limit)
	err = eachRow(it, func(row []bigquery.Value) bool {
		if !b.room() {
			b.truncated = true
			return false
		}
		out := make([]any, len(row))
		for i, v := range row {
			var f *bigquery.FieldSchema
			if i < len(it.Schema) {
				f = it.Schema[i]
			}
			out[i] = bqCell(v, f)
		}
		b.add(out)
		return true
	})
	res.Columns = []string{}
	for _, f := range it.Schema {
		res.Columns = append(res.Columns, f.Name)
	}
	res.Rows, res.Truncated = b.rows, b.truncated
	if err != nil {
		return res, bqError(err)
	}
	return res, nil
}

// eachRow calls fn with each row of it until fn returns false or the rows end.
func eachRow(it *bigquery.RowIterator, fn func([]bigquery.Value) bool) error {
	for {
		var row []bigquery.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fn(row) {
			return nil
		}
	}
}

// bqCell makes a BigQuery value JSON-friendly: times as RFC 3339 text, numerics as exact
// decimal text, bytes as base64, records as objects by field name, arrays as arrays. Nested
// values are JSON text, as a folder's nested values are.
func bqCell(v bigquery.Value, f *bigquery.FieldSchema) any {
	switch x := v.(type) {
	case nil, bool, int64, float64:
		return x
	case string:
		return cell(x)
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case civil.Date, civil.Time, civil.DateTime:
		return fmt.Sprint(x)
	case *big.Rat:
		return bigquery.NumericString(x)
	case []bigquery.Value:
		return jsonText(bqNested(x, f))
	}
	return cell(fmt.Sprint(v))
}

// bqNested is a repeated or record value as plain Go values for JSON.
func bqNested(vs []bigquery.Value, f *bigquery.FieldSchema) any {
	if f != nil && f.Type == bigquery.RecordFieldType && !f.Repeated {
		m := map[string]any{}
		for i, v := range vs {
			name := fmt.Sprintf("f%d", i)
			var sub *bigquery.FieldSchema
			if i < len(f.Schema) {
				sub = f.Schema[i]
				name = sub.Name
			}
			m[name] = bqPlain(v, sub)
		}
		return m
	}
	out := make([]any, len(vs))
	var elem *bigquery.FieldSchema
	if f != nil {
		c := *f
		c.Repeated = false
		elem = &c
	}
	for i, v := range vs {
		out[i] = bqPlain(v, elem)
	}
	return out
}

func bqPlain(v bigquery.Value, f *bigquery.FieldSchema) any {
	if x, ok := v.([]bigquery.Value); ok {
		return bqNested(x, f)
	}
	return bqCell(v, f)
}

// bqMessage is BigQuery's own message of err, without the client's wrapping.
func bqMessage(err error) string {
	var be *bigquery.Error
	if errors.As(err, &be) && be.Message != "" {
		return be.Message
	}
	var me bigquery.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		return bqMessage(me[0])
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		if ge.Message != "" {
			return ge.Message
		}
		return http.StatusText(ge.Code)
	}
	return err.Error()
}

// bqStatus is the HTTP status of a BigQuery API failure (0 when it is not one).
func bqStatus(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// EnvBigQueryEmulator, from the real environment only, points the BigQuery client at an
// emulator (host:port) without credentials, as FIRESTORE_EMULATOR_HOST does for Firestore.
const EnvBigQueryEmulator = "BIGQUERY_EMULATOR_HOST"

// NewBigQueryClient is the client of project: with the user's Google credentials, or, when
// emulatorHost is set, the emulator's, without any.
func NewBigQueryClient(ctx context.Context, project, emulatorHost string) (*bigquery.Client, error) {
	var opts []option.ClientOption
	if emulatorHost != "" {
		opts = append(opts, option.WithEndpoint("http://"+emulatorHost), option.WithoutAuthentication())
	}
	c, err := bigquery.NewClient(ctx, project, opts...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to create the BigQuery client", goerr.V("project", project))
	}
	return c, nil
}
