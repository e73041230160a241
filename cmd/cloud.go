package cmd

import (
	"context"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
)

func openCloudStore(ctx context.Context, g *globalOptions) (store.Store, error) {
	s, err := cloud.Open(ctx, cloud.Options{
		Project: g.FirestoreProject, Database: g.FirestoreDatabase,
		Bucket: g.Bucket, Prefix: g.Prefix, Workspace: g.Workspace,
	})
	if err != nil {
		return nil, goerr.Wrap(err, "failed to open the cloud store",
			goerr.V("project", g.FirestoreProject), goerr.V("database", g.FirestoreDatabase), goerr.V("bucket", g.Bucket))
	}
	return s, nil
}
