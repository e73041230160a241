// Package stage keeps the findings of one `alert add` between reading and storing: nothing of
// an input is stored until all of it has been read and found valid, however large it is. The
// distinct findings of each input are kept in order, in memory up to a limit and beyond it in
// a temporary SQLite database that is deleted on Close, so memory does not grow with the input
// (a 1 GB stream is staged on disk, its duplicates found by the database's index).
package stage

import (
	"context"
	"database/sql"
	"os"
	"time"

	"github.com/m-mizutani/goerr/v2"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/alertchat/alertchat/pkg/record"
)

// DefaultMemory is how many bytes of findings are kept in memory before the stage spills to
// disk.
const DefaultMemory = 16 << 20

// Options configure New.
type Options struct {
	// Memory bounds the bytes kept in memory (<= 0: DefaultMemory).
	Memory int
	// Dir is where the spill database is made (empty: the system's temporary directory).
	Dir string
}

type key struct {
	input int
	id    record.AlertID
}

type entry struct {
	input int
	alert *record.Alert
}

// Stage is the staging area. It is not safe for concurrent use.
type Stage struct {
	o      Options
	ctx    context.Context
	mem    []entry
	places map[key]string
	bytes  int
	n      int

	path string
	db   *sql.DB
	tx   *sql.Tx
	ins  *sql.Stmt
}

// New returns an empty stage.
func New(ctx context.Context, o Options) *Stage {
	if o.Memory <= 0 {
		o.Memory = DefaultMemory
	}
	return &Stage{o: o, ctx: ctx, places: map[key]string{}}
}

// entryOverhead approximates what an entry costs beside its data.
const entryOverhead = 256

// Add keeps a, the finding at place of input, unless that input already had a finding with
// its ID: then a is dropped and first is the place of the one kept.
func (s *Stage) Add(input int, a *record.Alert, place string) (first string, dup bool, err error) {
	k := key{input, a.ID}
	if s.db == nil {
		if p, ok := s.places[k]; ok {
			return p, true, nil
		}
		s.places[k] = place
		s.mem = append(s.mem, entry{input, a})
		s.bytes += len(a.Data) + len(a.Title) + len(place) + entryOverhead
		s.n++
		if s.bytes > s.o.Memory {
			return "", false, s.spill()
		}
		return "", false, nil
	}
	added, err := s.insert(input, a, place)
	if err != nil {
		return "", false, err
	}
	if !added {
		if err := s.tx.QueryRowContext(s.ctx, `SELECT place FROM staged WHERE input = ? AND id = ?`, input, string(a.ID)).Scan(&first); err != nil {
			return "", false, goerr.Wrap(err, "failed to read the staged findings")
		}
		return first, true, nil
	}
	s.n++
	return "", false, nil
}

// Len is how many distinct findings are staged.
func (s *Stage) Len() int { return s.n }

// spill moves what is in memory to a new temporary database, where everything staged after
// goes too.
func (s *Stage) spill() error {
	f, err := os.CreateTemp(s.o.Dir, "alertchat-add-*.db")
	if err != nil {
		return goerr.Wrap(err, "failed to create the staging file")
	}
	s.path = f.Name()
	_ = f.Close()
	// A scratch database: no journal, no syncing, one connection.
	db, err := sql.Open("sqlite", "file:"+s.path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		return goerr.Wrap(err, "failed to open the staging file", goerr.V("path", s.path))
	}
	db.SetMaxOpenConns(1)
	s.db = db
	if _, err := db.ExecContext(s.ctx, `CREATE TABLE staged (seq INTEGER PRIMARY KEY, input INTEGER NOT NULL, id TEXT NOT NULL,
		place TEXT NOT NULL, title TEXT NOT NULL, severity TEXT NOT NULL, source TEXT NOT NULL, time INTEGER NOT NULL, data BLOB NOT NULL,
		UNIQUE (input, id))`); err != nil {
		return goerr.Wrap(err, "failed to create the staging table", goerr.V("path", s.path))
	}
	if s.tx, err = db.BeginTx(s.ctx, nil); err != nil {
		return goerr.Wrap(err, "failed to write the staging file", goerr.V("path", s.path))
	}
	// The transaction holds the one connection, and with it the open file, until Close: the
	// name can go now, so that a run killed before Close (Ctrl-C, a signal) leaves no copy of
	// the alerts in the temporary directory. Where an open file cannot be removed (Windows),
	// Close removes it.
	_ = os.Remove(s.path)
	if s.ins, err = s.tx.PrepareContext(s.ctx, `INSERT INTO staged (input, id, place, title, severity, source, time, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (input, id) DO NOTHING`); err != nil {
		return goerr.Wrap(err, "failed to write the staging file", goerr.V("path", s.path))
	}
	for _, e := range s.mem {
		if _, err := s.insert(e.input, e.alert, s.places[key{e.input, e.alert.ID}]); err != nil {
			return err
		}
	}
	s.mem, s.places, s.bytes = nil, nil, 0
	return nil
}

func (s *Stage) insert(input int, a *record.Alert, place string) (bool, error) {
	var when int64
	if !a.Time.IsZero() {
		when = a.Time.UnixNano()
	}
	res, err := s.ins.ExecContext(s.ctx, input, string(a.ID), place, a.Title, a.Severity, a.Source, when, []byte(a.Data))
	if err != nil {
		return false, goerr.Wrap(err, "failed to write the staging file", goerr.V("path", s.path))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// Each gives fn the staged findings, in the order they were added, with their input.
func (s *Stage) Each(fn func(input int, a *record.Alert) error) error {
	if s.db == nil {
		for _, e := range s.mem {
			if err := fn(e.input, e.alert); err != nil {
				return err
			}
		}
		return nil
	}
	rows, err := s.tx.QueryContext(s.ctx, `SELECT input, id, title, severity, source, time, data FROM staged ORDER BY seq`)
	if err != nil {
		return goerr.Wrap(err, "failed to read the staging file", goerr.V("path", s.path))
	}
	defer rows.Close()
	for rows.Next() {
		var input int
		var id string
		var when int64
		a := &record.Alert{}
		if err := rows.Scan(&input, &id, &a.Title, &a.Severity, &a.Source, &when, &a.Data); err != nil {
			return goerr.Wrap(err, "failed to read the staging file", goerr.V("path", s.path))
		}
		a.ID = record.AlertID(id)
		if when != 0 {
			a.Time = time.Unix(0, when).UTC()
		}
		if err := fn(input, a); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return goerr.Wrap(err, "failed to read the staging file", goerr.V("path", s.path))
	}
	return nil
}

// Close drops everything staged, and the spill database.
func (s *Stage) Close() error {
	s.mem, s.places = nil, nil
	if s.db == nil {
		return nil
	}
	if s.tx != nil {
		_ = s.tx.Rollback()
	}
	err := s.db.Close()
	s.db = nil
	if rmErr := os.Remove(s.path); rmErr != nil && err == nil && !os.IsNotExist(rmErr) {
		err = rmErr
	}
	return err
}
