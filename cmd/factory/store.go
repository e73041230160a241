package factory

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/workspace"
)

// Store is a command's opened store: the workspace's store stack.
type Store = workspace.Store

// WithStore opens a store with open and o, runs fn with it, and closes it, uploading nothing
// (history sync, which uploads itself); the other commands use report.WithUploadedStore.
func WithStore(ctx context.Context, open func(context.Context, StoreOptions) (*Store, error), o StoreOptions, fn func(*Store) error) error {
	s, err := open(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

// Stack wraps an opened backend in the store stack of the run's settings (see
// workspace.Stack), with the warning of a missing token key on ios.ErrOut. It uploads nothing:
// the commands open through report.OpenAndUpload.
func Stack(ios *cmdutil.IOStreams, cfg cmdutil.Config, logger *slog.Logger, backend store.Store, types []redact.Type, o StoreOptions) *Store {
	return workspace.Stack(backend, settings(cfg), types, stackOptions(ios, logger, o))
}

func stackOptions(ios *cmdutil.IOStreams, logger *slog.Logger, o StoreOptions) workspace.Options {
	return workspace.Options{
		Logger: logger, IgnoreRecordedOutage: o.IgnoreRecordedOutage, Embedder: o.Embedder,
		OnKeyMissing: func(err error) {
			fmt.Fprintf(ios.ErrOut, "Warning: the workspace's token key is unavailable (%s): this command writes plain [REDACTED_TYPE] placeholders.\n", cmdutil.OneLine(cmdutil.Message(err)))
		},
	}
}

// settings are the storage settings of cfg, as the workspace's store takes them.
func settings(cfg cmdutil.Config) workspace.Settings {
	reads, writes := cfg.BreakerFiles()
	return workspace.Settings{
		DataDir: cfg.DataDir, FirestoreProject: cfg.FirestoreProject, FirestoreDatabase: cfg.FirestoreDatabase,
		Bucket: cfg.Bucket, Prefix: cfg.Prefix, Workspace: cfg.Workspace, TokenKeyFile: cfg.TokenKeyFile,
		StoreTimeout: cfg.StoreTimeout, BackendID: cfg.BackendID(), BreakerReads: reads, BreakerWrites: writes,
		SpoolRoot: cfg.SpoolRoot(),
	}
}
