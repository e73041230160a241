package alert

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/triage"
)

// Puller is what alert pull needs of Pub/Sub: the subscriber's unary Pull and Acknowledge.
type Puller interface {
	Pull(ctx context.Context, req *pubsubpb.PullRequest, opts ...gax.CallOption) (*pubsubpb.PullResponse, error)
	Acknowledge(ctx context.Context, req *pubsubpb.AcknowledgeRequest, opts ...gax.CallOption) error
}

// PullOptions are "alert pull"'s.
type PullOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Connect makes the Pub/Sub client of project (PUBSUB_EMULATOR_HOST is honoured by the
	// client library); close ends it.
	Connect func(ctx context.Context, project string) (p Puller, close func() error, err error)
	// Subscription is projects/P/subscriptions/S.
	Subscription string
	// Max stops after that many alerts (0: no limit).
	Max int
	// Wait stops when nothing arrived for that long.
	Wait time.Duration
	// Triage triages each stored alert once it is acknowledged (alertchat triage's first look),
	// Concurrency at a time; NewTriage makes the triage's parts once the store is open.
	Triage      bool
	Concurrency int
	NewTriage   func(ctx context.Context, s *factory.Store) (triage.Options, error)
}

// NewCmdPull is "alertchat alert pull --subscription projects/P/subscriptions/S".
func NewCmdPull(f *factory.Factory, runF func(context.Context, *PullOptions) error) *cli.Command {
	opts := &PullOptions{IO: f.IO, OpenStore: f.OpenStore, Connect: connectPubSub, NewTriage: newTriage(f.SessionDeps())}
	return &cli.Command{
		Name:  "pull",
		Usage: "store the alerts of a Pub/Sub subscription (e.g. Security Command Center notifications) and print their IDs, one a line",
		Description: `Pulls the messages of a Pub/Sub subscription (for example Security Command Center
notifications), stores the alerts they hold and acknowledges each message once its alerts are stored,
so a crash never stores one twice. Stops after --max alerts or when nothing arrives for --wait.
PUBSUB_EMULATOR_HOST is honoured.

--triage gives each stored alert alertchat triage's first look once its message is acknowledged
(--concurrency at a time, with the global --model): a proposed verdict on a history of its own,
a line per alert and a summary on stderr. An alert triaged already is not triaged again. A triage
that fails loses nothing and gets no message delivered again: the alert is stored, and the exit
status is 1 at the end.

Example:
  alertchat alert pull --subscription projects/P/subscriptions/scc-findings --wait 30s
  alertchat alert pull --subscription projects/P/subscriptions/scc-findings --triage

Exit status: 2 when a message is not an alert (the rest are stored), 3 when the subscription does not exist.`,
		UsageText: "alertchat alert pull --subscription projects/P/subscriptions/S [--max N] [--wait DURATION]\n" +
			"Each message is stored, then acknowledged; a message that is not an alert is named on stderr and left\n" +
			"unacknowledged (the subscription's dead-letter topic, if set, takes it after its delivery attempts).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "subscription", Usage: "projects/PROJECT/subscriptions/NAME", Required: true, Destination: &opts.Subscription},
			&cli.IntFlag{Name: "max", Usage: "stop after this many alerts (0: no limit)", Destination: &opts.Max},
			&cli.DurationFlag{Name: "wait", Value: 10 * time.Second, Usage: "stop when nothing arrives for this long", Destination: &opts.Wait},
			&cli.BoolFlag{Name: "triage", Usage: "triage each stored alert (as alertchat triage does) once it is acknowledged", Destination: &opts.Triage},
			&cli.IntFlag{Name: "concurrency", Usage: "with --triage: investigations at once", Value: 4, Destination: &opts.Concurrency},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			if _, err := subscriptionProject(opts.Subscription); err != nil {
				return err
			}
			if opts.Max < 0 {
				return cmdutil.UsageErrorf("--max must be 0 (no limit) or more")
			}
			if opts.Wait <= 0 {
				return cmdutil.UsageErrorf("--wait must be positive")
			}
			if opts.Concurrency < 1 || opts.Concurrency > 64 {
				return cmdutil.UsageErrorf("invalid --concurrency %d: 1 to 64", opts.Concurrency)
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				var tr *pullTriage
				if opts.Triage {
					to, err := opts.NewTriage(ctx, s)
					if err != nil {
						return err
					}
					tr = &pullTriage{ios: opts.IO, store: s, opts: to, concurrency: opts.Concurrency}
				}
				err := pullRun(ctx, opts, s, s.MaxAlertSize, tr)
				return errors.Join(err, tr.finish(err))
			})
		},
	}
}

// subscriptionName is Pub/Sub's form of a subscription's name (lengths are checked apart: a
// bounded repeat compiles into a large program).
var subscriptionName = regexp.MustCompile(`^projects/([a-z][a-z0-9.:-]+)/subscriptions/([A-Za-z][A-Za-z0-9._~+%-]+)$`)

func subscriptionProject(name string) (string, error) {
	m := subscriptionName.FindStringSubmatch(name)
	if m == nil || len(m[1]) > 63 || len(m[2]) < 3 || len(m[2]) > 255 {
		return "", cmdutil.UsageErrorf("invalid --subscription %q: want projects/PROJECT/subscriptions/NAME", name)
	}
	return m[1], nil
}

func connectPubSub(ctx context.Context, project string) (Puller, func() error, error) {
	c, err := pubsub.NewClient(ctx, project)
	if err != nil {
		return nil, nil, goerr.Wrap(err, "failed to create the Pub/Sub client", goerr.V("project", project))
	}
	return c.SubscriptionAdminClient, c.Close, nil
}

// pullBatch is how many messages one Pull asks for.
const pullBatch = 1000

// pullRun pulls until --max alerts are stored or nothing arrived for --wait. Each batch of
// messages is read, its alerts stored in one request, and only then acknowledged: a crash in
// between leaves the messages to be delivered again, and storing the same finding again changes
// nothing (its ID is its content's). A message that is not an alert is named on stderr once and
// never acknowledged; the command then exits 2, after the others are stored. s takes alerts
// of at most backendMax bytes (0: no limit of its own).
func pullRun(ctx context.Context, opts *PullOptions, s store.Store, backendMax int, tr *pullTriage) error {
	project, err := subscriptionProject(opts.Subscription)
	if err != nil {
		return err
	}
	p, closeFn, err := opts.Connect(ctx, project)
	if err != nil {
		return err
	}
	defer func() { _ = closeFn() }()
	maxSize := maxAlertSize(backendMax)
	out := bufio.NewWriter(opts.IO.Out)
	defer out.Flush()
	refused := map[string]bool{} // message IDs named already
	stored := 0
	idleSince := time.Now()
	for opts.Max == 0 || stored < opts.Max {
		left := opts.Wait - time.Since(idleSince)
		if left <= 0 {
			break
		}
		n := pullBatch
		if opts.Max > 0 {
			n = min(n, opts.Max-stored)
		}
		pctx, cancel := context.WithTimeout(ctx, left)
		resp, err := p.Pull(pctx, &pubsubpb.PullRequest{Subscription: opts.Subscription, MaxMessages: int32(n)})
		idle := errors.Is(pctx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if idle || status.Code(err) == codes.DeadlineExceeded {
				break // nothing arrived for --wait
			}
			return pullError(err, opts.Subscription)
		}
		if len(resp.GetReceivedMessages()) == 0 {
			// Pub/Sub holds a pull open until a message comes; a server that answers at once
			// with nothing is asked again a moment later, not in a tight loop.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(min(200*time.Millisecond, left)):
			}
			continue
		}
		batch, acks, fresh := readMessages(opts.IO.ErrOut, resp.GetReceivedMessages(), refused, maxSize)
		if len(batch) > 0 || fresh {
			idleSince = time.Now()
		}
		if len(batch) > 0 {
			if _, err := s.PutAlerts(ctx, batch); err != nil {
				return goerr.Wrap(err, "failed to store pulled alerts", goerr.V("subscription", opts.Subscription))
			}
		}
		if err := acknowledge(ctx, p, opts.Subscription, acks); err != nil {
			// Stored already: delivered again, they are the same alerts.
			fmt.Fprintf(opts.IO.ErrOut, "Warning: %s stored but not acknowledged (%s); they will be delivered again and change nothing.\n",
				format.Plural(len(acks), "message was", "messages were"), cmdutil.OneLine(cmdutil.Message(err)))
		}
		for _, a := range batch {
			fmt.Fprintln(out, a.ID)
		}
		if err := out.Flush(); err != nil {
			return goerr.Wrap(err, "failed to write alert IDs")
		}
		stored += len(batch)
		// Acknowledged first: a triage that fails or is cut short re-delivers nothing.
		tr.batch(ctx, batch)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if len(refused) > 0 {
		return goerr.Wrap(alert.ErrInvalid, format.Plural(len(refused),
			"message of "+opts.Subscription+" is not an alert and was left unacknowledged",
			"messages of "+opts.Subscription+" are not alerts and were left unacknowledged"))
	}
	return nil
}

// readMessages reads the alerts of msgs, each alert once, and the ack IDs of the messages that
// were alerts. A message that is not one is named on w the first time it is seen (fresh).
func readMessages(w interface{ Write([]byte) (int, error) }, msgs []*pubsubpb.ReceivedMessage, refused map[string]bool, maxSize int) (batch []*record.Alert, acks []string, fresh bool) {
	seen := map[record.AlertID]bool{}
	now := store.Now()
	for _, m := range msgs {
		id := m.GetMessage().GetMessageId()
		var found []*record.Alert
		var bad error
		for f, err := range alert.Read(bytes.NewReader(m.GetMessage().GetData()), maxSize) {
			if err != nil {
				bad = err
				break
			}
			found = append(found, f.Alert)
		}
		if bad != nil {
			if !refused[id] {
				refused[id], fresh = true, true
				fmt.Fprintf(w, "message %s: not an alert, left unacknowledged: %s\n", cmdutil.OneLine(id), cmdutil.OneLine(cmdutil.Message(bad)))
			}
			continue
		}
		for _, a := range found {
			if !seen[a.ID] {
				seen[a.ID] = true
				a.CreatedAt = now.Add(time.Duration(len(batch)) * time.Microsecond)
				batch = append(batch, a)
			}
		}
		acks = append(acks, m.GetAckId())
	}
	return batch, acks, fresh
}

// acknowledge acknowledges ackIDs, a few hundred a request (a request holds at most 512 kB).
func acknowledge(ctx context.Context, p Puller, sub string, ackIDs []string) error {
	for len(ackIDs) > 0 {
		n := min(len(ackIDs), 500)
		if err := p.Acknowledge(ctx, &pubsubpb.AcknowledgeRequest{Subscription: sub, AckIds: ackIDs[:n]}); err != nil {
			return goerr.Wrap(err, "failed to acknowledge messages", goerr.V("subscription", sub))
		}
		ackIDs = ackIDs[n:]
	}
	return nil
}

// pullError says what a failed Pull means: a subscription that does not exist is "not found"
// (exit 3).
func pullError(err error, sub string) error {
	switch status.Code(err) {
	case codes.NotFound:
		return cmdutil.NotFoundf("no subscription %s", sub)
	case codes.PermissionDenied, codes.Unauthenticated:
		return goerr.Wrap(err, "not allowed to pull from "+sub+" (the credentials need roles/pubsub.subscriber)")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return goerr.Wrap(err, "Pub/Sub did not answer", goerr.V("subscription", sub))
	}
	return goerr.Wrap(err, "failed to pull from "+strings.TrimSpace(sub))
}
