package factory

import (
	"context"

	"github.com/alertchat/alertchat/pkg/workspace"
)

// Store is a command's opened store: the workspace's store stack.
type Store = workspace.Store

// WithStore opens a store with open and o, runs fn with it, and closes it.
func WithStore(ctx context.Context, open func(context.Context, StoreOptions) (*Store, error), o StoreOptions, fn func(*Store) error) error {
	s, err := open(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}
