package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/fsck"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
)

// ReindexOptions are "history reindex"'s.
type ReindexOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Embedder, when it returns one, embeds the histories indexed (embeddings on).
	Embedder func(ctx context.Context) (search.Embedder, error)
}

// NewCmdReindex is "alertchat history reindex": a one-off for histories saved before the
// search index existed. Interrupted, it is simply run again.
func NewCmdReindex(f *factory.Factory, runF func(context.Context, *ReindexOptions) error) *cli.Command {
	opts := &ReindexOptions{IO: f.IO, OpenStore: f.OpenStore, Embedder: f.Embedder}
	if opts.Embedder == nil {
		opts.Embedder = func(context.Context) (search.Embedder, error) { return nil, nil }
	}
	return &cli.Command{
		Name:  "reindex",
		Usage: "add histories saved before search existed to the search index (resumable)",
		Description: `Adds the histories saved before search existed to the search index. It can be stopped and run
again: it goes on where it stopped.

Example:
  alertchat history reindex`,
		UsageText: "alertchat history reindex",
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			s, err := report.OpenAndUpload(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			return reindexRun(ctx, opts, s)
		},
	}
}

// reindexRun indexes what is missing, with a progress line on a terminal.
func reindexRun(ctx context.Context, opts *ReindexOptions, s store.Store) error {
	ios := opts.IO
	emb, err := opts.Embedder(ctx)
	if err != nil {
		return err
	}
	last := ""
	progress := func(done, total int) {
		last = fmt.Sprintf("Indexing histories: %d/%d", done, total)
		ios.ShowProgressLine(last)
	}
	n, err := search.IndexMissing(ctx, s, emb, progress)
	ios.StopProgressIndicator()
	if ios.StderrTTY && n > 0 {
		ios.Notice(last) // the count reached stays on the screen
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(ios.ErrOut, "Interrupted after %s; run 'alertchat history reindex' again to index the rest.\n", format.Plural(n, "history", "histories"))
		}
		return err
	}
	if n == 0 {
		fmt.Fprintln(ios.ErrOut, "Every history is indexed.")
		return nil
	}
	fmt.Fprintf(ios.ErrOut, "Indexed %s.\n", format.Plural(n, "history", "histories"))
	return nil
}

// KindUnindexed is the fsck finding of a history missing from the search index.
const KindUnindexed = "missing_from_search_index"

// indexFindings lists the histories missing from the search index; with repair, it indexes
// them.
func indexFindings(ctx context.Context, ix store.Indexer, repair bool) ([]fsck.Finding, error) {
	var out []fsck.Finding
	after := ""
	for {
		ids, err := ix.Unindexed(ctx, record.HistoryID(after), store.MaxLimit)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			f := fsck.Finding{Kind: KindUnindexed, HistoryID: id, Problem: true,
				Detail: "not in the search index ('alertchat history reindex' adds it)"}
			if repair {
				if err := ix.Reindex(ctx, id); err != nil {
					f.Error = cmdutil.Message(err)
				} else {
					f.Repaired = true
				}
			}
			out = append(out, f)
		}
		if len(ids) < store.MaxLimit {
			return out, nil
		}
		after = string(ids[len(ids)-1])
	}
}
