package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/store"
)

// fsck finds what an outside hand or an interrupted process left in a store and, with
// --repair, puts it right without deleting anything that may hold a turn:
//
//   - a leftover temporary file (local store: an interrupted save): removed;
//   - content without metadata (an orphan transcript: a save interrupted between its content
//     and its metadata, or a delete between its metadata and its content): moved to
//     {prefix}lost+found/, where it can be read; not adopted, since its alert, title and
//     workspace are not known;
//   - metadata without content (a transcript removed by an outside hand): the metadata is
//     moved to {prefix}lost+found/{id}.{time}.meta.json with the reason, and removed, so the
//     history no longer lists as resumable;
//   - unreadable content or metadata (a corrupt object or record): the object is moved to
//     {prefix}lost+found/ and the metadata handled as above (the copy names the reason).
//
// Orphans and temporary files younger than --grace may belong to a save in progress: they are
// reported as notes and left alone. A history whose metadata counts fewer messages than its
// transcript holds (content written, metadata not, before a crash) is consistent — every turn
// is there and the next save updates the metadata — and is reported as a note.
//
// Exit status: 0 when the store is consistent or every problem was repaired, 1 otherwise.

type fsckOptions struct {
	Repair bool
	Grace  time.Duration
	Output string
}

// fsckFinding is one thing fsck found.
type fsckFinding struct {
	Kind      string          `json:"kind"`
	Key       string          `json:"key,omitempty"`
	HistoryID model.HistoryID `json:"history_id,omitempty"`
	Detail    string          `json:"detail"`
	// Problem is false for notes (consistent states worth knowing about).
	Problem  bool   `json:"problem"`
	Repaired bool   `json:"repaired,omitempty"`
	MovedTo  string `json:"moved_to,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Kinds of findings.
const (
	fsckTemp            = "temp_file"
	fsckOrphan          = "orphan_content"
	fsckMissingContent  = "missing_content"
	fsckCorruptContent  = "corrupt_content"
	fsckCorruptMetadata = "corrupt_metadata"
	fsckStaleMetadata   = "metadata_behind_content"
	fsckInProgress      = "recent_write"
	fsckUnknownObject   = "unknown_object"
)

func historyFsckCommand(g *globalOptions) *cli.Command {
	opts := &fsckOptions{}
	return &cli.Command{
		Name:  "fsck",
		Usage: "check the store for content without metadata, metadata without content, unreadable transcripts and leftover files",
		UsageText: "alertchat history fsck [--repair] [--grace 5m] [-o text|json]\n" +
			"exit 0: consistent (or everything repaired); 1: problems found and not repaired",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "repair", Usage: "repair what is found (moved aside to lost+found, never deleted)", Destination: &opts.Repair},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Minute, Usage: "leave alone orphans and temporary files younger than this (a save may be in progress)", Destination: &opts.Grace},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "text or json", Destination: &opts.Output},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := outputFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if c.Args().Len() > 0 {
				return usageErrorf("unexpected arguments: %v", c.Args().Slice())
			}
			if opts.Grace < 0 {
				return usageErrorf("--grace must not be negative")
			}
			return g.withStore(ctx, func(s store.Store) error {
				ck, ok := checkerOf(s)
				if !ok {
					return goerr.New("this store cannot be checked")
				}
				return runFsck(ctx, g.io, ck, g.Prefix, g.Workspace, opts)
			})
		},
	}
}

func runFsck(ctx context.Context, ios *IOStreams, ck store.Checker, prefix, workspace string, opts *fsckOptions) error {
	fs, err := checkStore(ctx, ck, prefix, workspace, opts)
	if err != nil {
		return err
	}
	problems, unrepaired := 0, 0
	for _, f := range fs {
		if f.Problem {
			problems++
			if !f.Repaired {
				unrepaired++
			}
		}
	}
	if opts.Output == "json" {
		if fs == nil {
			fs = []fsckFinding{}
		}
		if err := printJSON(ios.Out, fs); err != nil {
			return err
		}
	} else {
		printFindings(ios.Out, fs)
	}
	switch {
	case problems == 0:
		fmt.Fprintln(ios.ErrOut, "No problems found.")
		return nil
	case unrepaired == 0:
		fmt.Fprintf(ios.ErrOut, "%s found, all repaired.\n", plural(problems, "problem", "problems"))
		return nil
	case opts.Repair:
		return goerr.New(fmt.Sprintf("%s found, %d not repaired", plural(problems, "problem", "problems"), unrepaired))
	}
	return goerr.New(fmt.Sprintf("%s found; 'alertchat history fsck --repair' repairs them", plural(problems, "problem", "problems")))
}

func printFindings(w io.Writer, fs []fsckFinding) {
	for _, f := range fs {
		label := "note"
		if f.Problem {
			label = "problem"
		}
		what := f.Key
		if what == "" {
			what = string(f.HistoryID)
		}
		line := fmt.Sprintf("%-8s %-24s %s: %s", label, f.Kind, oneLine(what), oneLine(f.Detail))
		switch {
		case f.Repaired && f.MovedTo != "":
			line += " -> repaired, moved to " + oneLine(f.MovedTo)
		case f.Repaired:
			line += " -> repaired"
		case f.Error != "":
			line += " -> repair failed: " + oneLine(f.Error)
		}
		fmt.Fprintln(w, line)
	}
}

// checkStore runs every check, repairing when asked, metadata first (a repair there may move an
// object aside, which then is not reported again as an orphan).
func checkStore(ctx context.Context, ck store.Checker, prefix, workspace string, opts *fsckOptions) ([]fsckFinding, error) {
	hs, ok := ck.(store.Histories)
	if !ok {
		return nil, goerr.New("this store cannot be checked")
	}
	ids, err := ck.ListHistoryIDs(ctx)
	if err != nil {
		return nil, goerr.Wrap(err, "fsck: failed to list histories")
	}
	var out []fsckFinding
	known := make(map[model.HistoryID]bool, len(ids))
	for _, id := range ids {
		known[id] = true
		if f := checkHistory(ctx, ck, hs, prefix, id, opts); f != nil {
			out = append(out, *f)
		}
	}
	objs, err := ck.ListObjects(ctx)
	if err != nil {
		return out, goerr.Wrap(err, "fsck: failed to list transcript objects")
	}
	now := time.Now()
	for _, o := range objs {
		f := fsckFinding{Key: o.Key, HistoryID: o.ID}
		age := now.Sub(o.Updated)
		switch {
		case o.Temp:
			f.Kind, f.Problem = fsckTemp, true
			f.Detail = fmt.Sprintf("leftover temporary file of an interrupted save (%d bytes, %s old)", o.Size, age.Round(time.Second))
		case o.ID == "":
			out = append(out, fsckFinding{Kind: fsckUnknownObject, Key: o.Key, Detail: "not a transcript key; left alone"})
			continue
		case known[o.ID] || (o.Workspace != "" && o.Workspace != workspace):
			continue
		default:
			exists, err := ck.MetadataExists(ctx, o.ID)
			if err != nil {
				return out, goerr.Wrap(err, "fsck: failed to look up history", goerr.V("history_id", o.ID))
			}
			if exists {
				continue // another workspace's, or saved since the listing
			}
			f.Kind, f.Problem = fsckOrphan, true
			f.Detail = fmt.Sprintf("transcript without metadata (%d bytes, %s old)", o.Size, age.Round(time.Second))
		}
		if age < opts.Grace {
			f.Kind, f.Problem = fsckInProgress, false
			f.Detail += fmt.Sprintf("; younger than --grace %s, maybe a save in progress: left alone", opts.Grace)
			out = append(out, f)
			continue
		}
		if opts.Repair {
			dest, err := ck.MoveAside(ctx, o.Key)
			f.Repaired, f.MovedTo = err == nil, dest
			if err != nil {
				f.Error = err.Error()
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// checkHistory checks one metadata record and its transcript, repairing when asked; nil when
// they are fine.
func checkHistory(ctx context.Context, ck store.Checker, hs store.Histories, prefix string, id model.HistoryID, opts *fsckOptions) *fsckFinding {
	key := store.ObjectKey(prefix, id)
	f := &fsckFinding{HistoryID: id, Key: key, Problem: true}
	meta, err := hs.GetHistoryMeta(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // deleted since the listing
	case err != nil:
		f.Kind, f.Detail = fsckCorruptMetadata, "metadata unreadable: "+err.Error()
		return repairHistory(ctx, ck, f, true, opts)
	}
	data, err := ck.ReadObject(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if still, _ := ck.MetadataExists(ctx, id); !still {
			return nil
		}
		f.Kind, f.Detail = fsckMissingContent, "metadata without transcript"
		return repairHistory(ctx, ck, f, false, opts)
	case err != nil:
		f.Kind, f.Detail = fsckCorruptContent, "transcript unreadable: "+err.Error()
		return repairHistory(ctx, ck, f, true, opts)
	}
	contents, err := store.DecodeTranscript(id, data)
	if err != nil {
		f.Kind, f.Detail = fsckCorruptContent, err.Error()
		return repairHistory(ctx, ck, f, true, opts)
	}
	if len(contents) > meta.MessageCount {
		return &fsckFinding{Kind: fsckStaleMetadata, HistoryID: id, Key: key,
			Detail: fmt.Sprintf("transcript holds %d contents, metadata counts %d (a save interrupted after its content); every turn is kept and the next save updates the metadata", len(contents), meta.MessageCount)}
	}
	return nil
}

// repairHistory quarantines a history whose transcript or metadata cannot be used: the
// object (when moveObject) and a copy of the metadata go to lost+found, and the metadata is
// removed.
func repairHistory(ctx context.Context, ck store.Checker, f *fsckFinding, moveObject bool, opts *fsckOptions) *fsckFinding {
	if !opts.Repair {
		return f
	}
	if moveObject {
		dest, err := ck.MoveAside(ctx, f.Key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			f.Error = err.Error()
			return f
		}
		f.MovedTo = dest
	}
	dest, err := ck.DropMetadata(ctx, f.HistoryID, f.Kind+": "+f.Detail)
	if err != nil {
		f.Error = err.Error()
		return f
	}
	if f.MovedTo != "" {
		f.MovedTo += ", " + dest
	} else {
		f.MovedTo = dest
	}
	f.Repaired = true
	return f
}
