// Package testenv gives tests Google Cloud backends: the Firestore emulator (started by
// `go run ./internal/cmd/testrun`, found through FIRESTORE_EMULATOR_HOST) and an in-process
// fake-gcs-server. Every call makes a fresh, isolated backend: a random Firestore project and
// a new storage server, so tests may run in parallel.
//
// When FIRESTORE_EMULATOR_HOST is unset, tests needing Firestore are skipped, or fail when
// ALERTCHAT_TEST_REQUIRE_EMULATOR=1 (set by the runner and in CI), so a green run can never
// silently have skipped them.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"
)

// Environment variables the harness reads or sets.
const (
	EnvFirestoreHost   = "FIRESTORE_EMULATOR_HOST"
	EnvStorageHost     = "STORAGE_EMULATOR_HOST"
	EnvRequireEmulator = "ALERTCHAT_TEST_REQUIRE_EMULATOR"
)

// Bucket is the name of the bucket every GCS server of this package starts with.
const Bucket = "alertchat-test"

// RunHint tells how to run the tests with the emulator.
const RunHint = "run the tests with `make test` (go run ./internal/cmd/testrun [-- go test args...]), " +
	"which starts the Firestore emulator and sets " + EnvFirestoreHost

// FirestoreHost returns the Firestore emulator address (host:port). Without one the test is
// skipped, or fails when ALERTCHAT_TEST_REQUIRE_EMULATOR=1.
func FirestoreHost(t testing.TB) string {
	t.Helper()
	host := os.Getenv(EnvFirestoreHost)
	if host != "" {
		return host
	}
	if os.Getenv(EnvRequireEmulator) == "1" {
		t.Fatalf("%s is not set but %s=1: %s", EnvFirestoreHost, EnvRequireEmulator, RunHint)
	}
	t.Skipf("%s is not set: %s", EnvFirestoreHost, RunHint)
	return ""
}

// NewProjectID returns a fresh random project ID; on the emulator each project is an empty,
// isolated set of databases.
func NewProjectID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "test-" + hex.EncodeToString(b[:])
}

// Firestore returns a client of the emulator's default database in a fresh project. It is
// closed, and the project's documents dropped, when the test ends.
func Firestore(t testing.TB) *firestore.Client {
	t.Helper()
	return FirestoreClient(t, NewProjectID(), firestore.DefaultDatabaseID)
}

// FirestoreClient returns a client of database (empty: "(default)") in project on the
// emulator, e.g. to look at what a subprocess wrote. Closed, and the database's documents
// dropped, when the test ends.
func FirestoreClient(t testing.TB, project, database string) *firestore.Client {
	t.Helper()
	host := FirestoreHost(t)
	if database == "" {
		database = firestore.DefaultDatabaseID
	}
	c, err := firestore.NewClientWithDatabase(context.Background(), project, database)
	if err != nil {
		t.Fatalf("firestore client on the emulator at %s: %v", host, err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		dropDatabase(host, project, database)
	})
	return c
}

// dropDatabase frees the emulator's memory of a test's documents.
func dropDatabase(host, project, database string) {
	url := "http://" + host + "/emulator/v1/projects/" + project + "/databases/" + database + "/documents"
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err == nil {
		_ = resp.Body.Close()
	}
}

// GCS starts a fake-gcs-server in this process on a loopback port, with the bucket Bucket,
// and returns it with a client of it. Both stop when the test ends.
func GCS(t testing.TB) (*fakestorage.Server, *storage.Client) {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		Scheme: "http",
		Host:   "127.0.0.1",
		Port:   0,
	})
	if err != nil {
		t.Fatalf("start fake-gcs-server: %v", err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: Bucket})
	return srv, StorageClient(t, srv.URL())
}

// StorageClient returns a client of the storage emulator at url (e.g. "http://127.0.0.1:1234"),
// reading through the JSON API (fake-gcs-server serves no XML reads). Closed when the test ends.
func StorageClient(t testing.TB, url string) *storage.Client {
	t.Helper()
	c, err := storage.NewClient(context.Background(),
		option.WithEndpoint(strings.TrimSuffix(url, "/")+"/storage/v1/"),
		option.WithoutAuthentication(),
		storage.WithJSONReads(),
	)
	if err != nil {
		t.Fatalf("storage client of %s: %v", url, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// GCSBucket starts a fake-gcs-server (see GCS) and returns its bucket name, its URL (the value
// for STORAGE_EMULATOR_HOST in a subprocess) and a handle of the bucket.
func GCSBucket(t testing.TB) (bucket, url string, handle *storage.BucketHandle) {
	t.Helper()
	srv, c := GCS(t)
	return Bucket, srv.URL(), c.Bucket(Bucket)
}

// Cloud is a complete, fresh Google Cloud backend for one test: a Firestore project on the
// emulator and a fake-gcs-server with a bucket, with clients for the test to look at.
type Cloud struct {
	Project       string // fresh Firestore project
	Database      string // "(default)"
	Bucket        string
	FirestoreHost string // host:port of the Firestore emulator
	StorageURL    string // http://127.0.0.1:PORT of the fake-gcs-server

	Firestore *firestore.Client
	Storage   *storage.Client
	Server    *fakestorage.Server
}

// CloudEnv starts a fresh backend (skipped or failed like Firestore when the emulator is
// missing).
func CloudEnv(t testing.TB) *Cloud {
	t.Helper()
	host := FirestoreHost(t)
	project := NewProjectID()
	fs := FirestoreClient(t, project, firestore.DefaultDatabaseID)
	srv, sc := GCS(t)
	return &Cloud{
		Project: project, Database: firestore.DefaultDatabaseID, Bucket: Bucket,
		FirestoreHost: host, StorageURL: srv.URL(),
		Firestore: fs, Storage: sc, Server: srv,
	}
}

// BucketHandle returns the handle of c.Bucket.
func (c *Cloud) BucketHandle() *storage.BucketHandle { return c.Storage.Bucket(c.Bucket) }

// EmulatorEnv returns the variables that point the Google Cloud SDKs of a subprocess at this
// backend: FIRESTORE_EMULATOR_HOST and STORAGE_EMULATOR_HOST.
func (c *Cloud) EmulatorEnv() []string {
	return []string{EnvFirestoreHost + "=" + c.FirestoreHost, EnvStorageHost + "=" + c.StorageURL}
}

// Env returns EmulatorEnv plus the alertchat settings selecting this backend
// (ALERTCHAT_FIRESTORE_PROJECT, ALERTCHAT_FIRESTORE_DATABASE, ALERTCHAT_BUCKET), to append to
// os.Environ() for a CLI subprocess (later entries win).
func (c *Cloud) Env() []string {
	return append(c.EmulatorEnv(),
		"ALERTCHAT_FIRESTORE_PROJECT="+c.Project,
		"ALERTCHAT_FIRESTORE_DATABASE="+c.Database,
		"ALERTCHAT_BUCKET="+c.Bucket,
	)
}
