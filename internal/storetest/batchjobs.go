package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Batch job contract (store.BatchJobs): a job is recorded per workspace, upserted, found by
// its ID or a unique prefix, by its input and model, and listed newest first.

// jobStores are the two workspaces of a batch job case.
type jobStores struct {
	a, b     store.BatchJobs
	wsA, wsB string
}

// testBatchJobs runs its cases on one backend: each works in workspaces of its own, which the
// contract keeps apart.
func testBatchJobs(t *testing.T, h *Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s jobStores)
	}{
		{"PutGet", testBatchJobPutGet},
		{"PrefixGet", testBatchJobPrefixGet},
		{"AmbiguousPrefix", testBatchJobAmbiguousPrefix},
		{"NotFound", testBatchJobNotFound},
		{"WorkspaceIsolation", testBatchJobIsolation},
		{"FindNewestByInput", testBatchJobFindNewest},
		{"ListOrderAndLimit", testBatchJobList},
		{"UpdateKeepsCreatedAt", testBatchJobUpdate},
		{"Reservation", testBatchReservation},
		{"ReservationRace", testBatchReservationRace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := jobStores{wsA: tc.name + "-a", wsB: tc.name + "-b"}
			s.a, s.b = h.Open(t, s.wsA), h.Open(t, s.wsB)
			tc.fn(t, s)
		})
	}
}

// batchJobAt is a job created at base+minutes.
func batchJobAt(id, sha, model string, minutes int) *record.BatchJob {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
	return &record.BatchJob{ID: id, Model: model, InputSHA256: sha, State: "JOB_STATE_PENDING", Requests: 3,
		CreatedAt: at, UpdatedAt: at}
}

func putJob(t *testing.T, s store.BatchJobs, j *record.BatchJob) {
	t.Helper()
	if err := s.PutBatchJob(context.Background(), j); err != nil {
		t.Fatalf("put %s: %v", j.ID, err)
	}
}

func getJob(t *testing.T, s store.BatchJobs, id string) *record.BatchJob {
	t.Helper()
	j, err := s.GetBatchJob(context.Background(), id)
	if err != nil {
		t.Fatalf("get %q: %v", id, err)
	}
	return j
}

// sameJob reports how got differs from want (times compared as instants, and in UTC).
func sameJob(got, want *record.BatchJob) string {
	switch {
	case got == nil:
		return "no job"
	case got.ID != want.ID || got.Workspace != want.Workspace || got.Model != want.Model ||
		got.InputSHA256 != want.InputSHA256 || got.State != want.State || got.Requests != want.Requests ||
		got.Succeeded != want.Succeeded || got.Failed != want.Failed || got.Collected != want.Collected ||
		got.InputFile != want.InputFile:
		return fmt.Sprintf("got %+v, want %+v", got, want)
	case !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt):
		return fmt.Sprintf("times %v / %v, want %v / %v", got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
	case got.CreatedAt.Location() != time.UTC || got.UpdatedAt.Location() != time.UTC:
		return "times not in UTC: " + got.CreatedAt.String()
	}
	return ""
}

func jobIDs(jobs []*record.BatchJob) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

func testBatchJobPutGet(t *testing.T, s jobStores) {
	a := s.a
	jst := time.FixedZone("JST", 9*3600)
	j := &record.BatchJob{ID: "batches/k3m9x2p7q1", Model: "gemini-2.5-flash", InputSHA256: strings.Repeat("ab", 32),
		State: "JOB_STATE_SUCCEEDED", Requests: 7, Succeeded: 5, Failed: 2, Collected: true, InputFile: "files/up1a2b",
		CreatedAt: time.Date(2026, 11, 20, 18, 0, 0, 123456789, jst), UpdatedAt: time.Date(2026, 11, 20, 18, 5, 0, 999, jst)}
	want := *j
	want.Workspace = s.wsA
	want.CreatedAt = j.CreatedAt.UTC().Truncate(time.Microsecond)
	want.UpdatedAt = j.UpdatedAt.UTC().Truncate(time.Microsecond)
	putJob(t, a, j)
	if j.Workspace != want.Workspace {
		t.Errorf("put set workspace %q, want %q", j.Workspace, want.Workspace)
	}
	if d := sameJob(getJob(t, a, j.ID), &want); d != "" {
		t.Errorf("get: %s", d)
	}
}

func testBatchJobPrefixGet(t *testing.T, s jobStores) {
	a := s.a
	for i, id := range []string{"batches/abcd1234", "batches/zzzz9999", "batches/abcd", "batches/abcdef", "batches/xy"} {
		putJob(t, a, batchJobAt(id, "sha", "m", i))
	}
	tests := []struct{ id, want string }{
		{"batches/zzzz9999", "batches/zzzz9999"}, // full ID
		{"zzzz9999", "batches/zzzz9999"},         // the part after "batches/"
		{"zzzz", "batches/zzzz9999"},             // prefix of that part
		{"batches/zzz", "batches/zzzz9999"},      // prefix of the full ID
		{"abcd1", "batches/abcd1234"},
		{"abcd", "batches/abcd"}, // an exact ID wins over the longer ones it prefixes
		{"batches/abcd", "batches/abcd"},
		{"abcde", "batches/abcdef"},
		{"xy", "batches/xy"}, // short, but exact
	}
	for _, tc := range tests {
		if got := getJob(t, a, tc.id); got.ID != tc.want {
			t.Errorf("get %q = %s, want %s", tc.id, got.ID, tc.want)
		}
	}
}

func testBatchJobAmbiguousPrefix(t *testing.T, s jobStores) {
	a := s.a
	ctx := context.Background()
	for i, id := range []string{"batches/abcd1111", "batches/abcd2222", "batches/zz01"} {
		putJob(t, a, batchJobAt(id, "sha", "m", i))
	}
	for _, id := range []string{"abcd", "batches/abcd", "batc"} {
		_, err := a.GetBatchJob(ctx, id)
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("get %q: %v, want ErrInvalid", id, err)
			continue
		}
		if !strings.Contains(err.Error(), "batches/abcd1111") || !strings.Contains(err.Error(), "batches/abcd2222") {
			t.Errorf("get %q: %q does not name the candidates", id, err)
		}
	}
	if got := getJob(t, a, "abcd2"); got.ID != "batches/abcd2222" {
		t.Errorf("a longer prefix resolves to %s", got.ID)
	}
}

func testBatchJobNotFound(t *testing.T, s jobStores) {
	a := s.a
	ctx := context.Background()
	if jobs, err := a.ListBatchJobs(ctx, 0); err != nil || len(jobs) != 0 {
		t.Errorf("list of an empty workspace: %v, %v", jobs, err)
	}
	putJob(t, a, batchJobAt("batches/abc123", "sha", "m", 0))
	for _, id := range []string{"nope1234", "batches/nope", "abc1234", "", "abc", "a"} {
		if j, err := a.GetBatchJob(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get %q: %v, %v; want ErrNotFound", id, j, err)
		}
	}
	for _, q := range [][2]string{{"other", "m"}, {"sha", "other"}, {"", ""}} {
		if j, err := a.FindBatchJob(ctx, q[0], q[1]); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("find %q: %v, %v; want ErrNotFound", q, j, err)
		}
	}
}

func testBatchJobIsolation(t *testing.T, s jobStores) {
	a, b := s.a, s.b
	ctx := context.Background()
	mine := batchJobAt("batches/shared0001", "sha", "m", 0)
	putJob(t, a, mine)
	for _, id := range []string{"batches/shared0001", "shared0001", "shar"} {
		if j, err := b.GetBatchJob(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get %q from another workspace: %v, %v; want ErrNotFound", id, j, err)
		}
	}
	if j, err := b.FindBatchJob(ctx, "sha", "m"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("find from another workspace: %v, %v; want ErrNotFound", j, err)
	}
	if jobs, err := b.ListBatchJobs(ctx, 0); err != nil || len(jobs) != 0 {
		t.Errorf("list from another workspace: %v, %v", jobs, err)
	}
	// The same job name in both workspaces is two records: neither write touches the other.
	theirs := batchJobAt("batches/shared0001", "sha", "m", 5)
	theirs.State = "JOB_STATE_CANCELLED"
	putJob(t, b, theirs)
	if got := getJob(t, a, "shared0001"); got.State != "JOB_STATE_PENDING" || got.Workspace != s.wsA || !got.CreatedAt.Equal(mine.CreatedAt) {
		t.Errorf("another workspace's put changed this one's job: %+v", got)
	}
	if got := getJob(t, b, "shared0001"); got.State != "JOB_STATE_CANCELLED" || got.Workspace != s.wsB {
		t.Errorf("the other workspace's own job: %+v", got)
	}
}

func testBatchJobFindNewest(t *testing.T, s jobStores) {
	a := s.a
	ctx := context.Background()
	// Put out of order, so that the newest by creation is neither the first nor the last put.
	for _, j := range []*record.BatchJob{
		batchJobAt("batches/old", "sha1", "flash", 0),
		batchJobAt("batches/newest", "sha1", "flash", 20),
		batchJobAt("batches/middle", "sha1", "flash", 10),
		batchJobAt("batches/othermodel", "sha1", "pro", 30),
		batchJobAt("batches/otherinput", "sha2", "flash", 40),
	} {
		putJob(t, a, j)
	}
	tests := []struct{ sha, model, want string }{
		{"sha1", "flash", "batches/newest"},
		{"sha1", "pro", "batches/othermodel"},
		{"sha2", "flash", "batches/otherinput"},
	}
	for _, tc := range tests {
		j, err := a.FindBatchJob(ctx, tc.sha, tc.model)
		if err != nil || j.ID != tc.want {
			t.Errorf("find %s/%s = %v, %v; want %s", tc.sha, tc.model, j, err, tc.want)
		}
	}
}

func testBatchJobList(t *testing.T, s jobStores) {
	a := s.a
	ctx := context.Background()
	for _, m := range []int{3, 1, 4, 0, 2} {
		putJob(t, a, batchJobAt(fmt.Sprintf("batches/job%d", m), "sha", "m", m))
	}
	all := []string{"batches/job4", "batches/job3", "batches/job2", "batches/job1", "batches/job0"}
	tests := []struct {
		limit int
		want  []string
	}{
		{0, all},  // DefaultLimit
		{-1, all}, // DefaultLimit
		{10, all},
		{2, all[:2]},
		{1, all[:1]},
	}
	for _, tc := range tests {
		jobs, err := a.ListBatchJobs(ctx, tc.limit)
		if got := jobIDs(jobs); err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("list limit %d = %v, %v; want %v", tc.limit, got, err, tc.want)
		}
	}
}

func testBatchJobUpdate(t *testing.T, s jobStores) {
	a := s.a
	ctx := context.Background()
	first := &record.BatchJob{ID: "batches/upd1", Model: "m", InputSHA256: "sha", State: "JOB_STATE_PENDING", Requests: 4}
	putJob(t, a, first)
	if first.CreatedAt.IsZero() || first.UpdatedAt.IsZero() {
		t.Fatalf("put left the times zero: %+v", first)
	}
	stored := getJob(t, a, "batches/upd1")
	if d := sameJob(stored, first); d != "" {
		t.Fatalf("first put: %s", d)
	}
	tests := []struct {
		name string
		next record.BatchJob
	}{
		{"running", record.BatchJob{ID: "batches/upd1", Model: "m", InputSHA256: "sha", State: "JOB_STATE_RUNNING", Requests: 4, Succeeded: 1}},
		{"done", record.BatchJob{ID: "batches/upd1", Model: "m", InputSHA256: "sha", State: "JOB_STATE_SUCCEEDED", Requests: 4, Succeeded: 3, Failed: 1,
			UpdatedAt: stored.UpdatedAt.Add(time.Hour)}},
		{"collected", record.BatchJob{ID: "batches/upd1", Model: "m", InputSHA256: "sha", State: "JOB_STATE_SUCCEEDED", Requests: 4, Succeeded: 3, Failed: 1,
			Collected: true, UpdatedAt: stored.UpdatedAt.Add(2 * time.Hour)}},
	}
	for _, tc := range tests {
		next := tc.next
		putJob(t, a, &next)
		if !next.CreatedAt.Equal(first.CreatedAt) {
			t.Errorf("%s: put reports created_at %v, want %v", tc.name, next.CreatedAt, first.CreatedAt)
		}
		want := tc.next
		want.Workspace, want.CreatedAt, want.UpdatedAt = s.wsA, first.CreatedAt, next.UpdatedAt
		if d := sameJob(getJob(t, a, "upd1"), &want); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
	if jobs, err := a.ListBatchJobs(ctx, 0); err != nil || len(jobs) != 1 {
		t.Errorf("updates added jobs: %v, %v", jobIDs(jobs), err)
	}
}

// testBatchReservation: a reservation is created once per input and model; it is replaced only
// by a writer naming its current owner and beat; other workspaces and models are other keys.
func testBatchReservation(t *testing.T, s jobStores) {
	ctx := context.Background()
	sha := strings.Repeat("cd", 32)
	put := func(st store.BatchJobs, r, prev *record.BatchReservation) *record.BatchReservation {
		t.Helper()
		got, err := st.PutBatchReservation(ctx, r, prev)
		if err != nil {
			t.Fatalf("reserve %+v: %v", r, err)
		}
		return got
	}
	mine := &record.BatchReservation{Model: "models/gemini-x", InputSHA256: sha, Owner: "run-1"}
	if got := put(s.a, mine, nil); got != mine || got.Workspace != s.wsA || got.UpdatedAt.IsZero() {
		t.Fatalf("first reservation: %+v", got)
	}
	// A second run finds the first.
	other := &record.BatchReservation{Model: "models/gemini-x", InputSHA256: sha, Owner: "run-2"}
	if got := put(s.a, other, nil); got.Owner != "run-1" || got.Beat != 0 || got.Workspace != s.wsA {
		t.Fatalf("second run got %+v, want run-1's", got)
	}
	// The owner's sign of life, then a stale take-over attempt fails.
	beat := &record.BatchReservation{Model: mine.Model, InputSHA256: sha, Owner: "run-1", Beat: 1}
	if got := put(s.a, beat, mine); got.Owner != "run-1" || got.Beat != 1 {
		t.Fatalf("beat: %+v", got)
	}
	if got := put(s.a, other, mine); got.Owner != "run-1" || got.Beat != 1 {
		t.Fatalf("take-over of an old beat wrote: %+v", got)
	}
	// Taking over the current state works; the job and the end are kept.
	other.Job = "batches/abc"
	if got := put(s.a, other, beat); got.Owner != "run-2" || got.Job != "batches/abc" {
		t.Fatalf("take-over: %+v", got)
	}
	if got := put(s.a, mine, nil); got.Owner != "run-2" || got.Job != "batches/abc" || got.Ended {
		t.Fatalf("after take-over: %+v", got)
	}
	// Another workspace and another model are free.
	if got := put(s.b, &record.BatchReservation{Model: mine.Model, InputSHA256: sha, Owner: "run-b"}, nil); got.Owner != "run-b" || got.Workspace != s.wsB {
		t.Fatalf("other workspace: %+v", got)
	}
	if got := put(s.a, &record.BatchReservation{Model: "gemini-y", InputSHA256: sha, Owner: "run-y"}, nil); got.Owner != "run-y" {
		t.Fatalf("other model: %+v", got)
	}
	for _, bad := range []*record.BatchReservation{
		{Model: "m", InputSHA256: "short", Owner: "o"},
		{Model: "", InputSHA256: sha, Owner: "o"},
		{Model: "m", InputSHA256: sha},
	} {
		if _, err := s.a.PutBatchReservation(ctx, bad, nil); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("reserve %+v: %v, want ErrInvalid", bad, err)
		}
	}
}

// testBatchReservationRace: of runs reserving one input at once, exactly one gets it, and the
// others see it; so do runs taking over one reservation at once.
func testBatchReservationRace(t *testing.T, s jobStores) {
	ctx := context.Background()
	sha := strings.Repeat("ef", 32)
	const n = 4
	race := func(prev *record.BatchReservation, round string) {
		t.Helper()
		owners := make(chan string, n)
		errs := make(chan error, n)
		for i := range n {
			go func() {
				r := &record.BatchReservation{Model: "m", InputSHA256: sha, Owner: fmt.Sprintf("%s-%d", round, i)}
				got, err := s.a.PutBatchReservation(ctx, r, prev)
				errs <- err
				if err == nil {
					owners <- got.Owner
				}
			}()
		}
		seen := map[string]int{}
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("%s: %v", round, err)
			}
			seen[<-owners]++
		}
		if len(seen) != 1 {
			t.Fatalf("%s: the runs saw different owners %v", round, seen)
		}
	}
	race(nil, "create")
	cur, err := s.a.PutBatchReservation(ctx, &record.BatchReservation{Model: "m", InputSHA256: sha, Owner: "probe"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	race(cur, "takeover")
}
