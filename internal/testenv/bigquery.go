package testenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/testinstall"
)

// The BigQuery emulator (goccy/bigquery-emulator) is a Go program of its own module
// (internal/tools/bigquery-emulator), built on first use and kept in the user's cache
// directory under the hash of that module's go.sum: its first build takes minutes (it
// compiles a SQL engine translated to Go), so tests that need it are not run with -short.
const (
	// EnvBigQueryEmulatorBin points at a built emulator, to skip the build.
	EnvBigQueryEmulatorBin = "BIGQUERY_EMULATOR_BIN"
	// bqBuildWait bounds how long a test waits for another process's build.
	bqBuildWait = 40 * time.Minute
)

// BigQueryEmulator is a running emulator serving the projects of a YAML file.
type BigQueryEmulator struct {
	// Host is host:port of its REST API, for BIGQUERY_EMULATOR_HOST.
	Host string
	// URL is its REST endpoint, for option.WithEndpoint.
	URL string
}

// StartBigQuery starts an emulator serving the data of yamlPath (the emulator's
// --data-from-yaml format), stopped when the test ends. Under -short the test is skipped;
// otherwise a failure to build or start it fails the test.
func StartBigQuery(t testing.TB, project, yamlPath string) *BigQueryEmulator {
	t.Helper()
	if testing.Short() {
		t.Skip("the BigQuery emulator takes minutes to build the first time: not with -short")
	}
	bin, err := bigQueryEmulatorBin()
	if err != nil {
		t.Fatalf("the BigQuery emulator: %v", err)
	}
	port, grpcPort := freePort(t), freePort(t)
	var log bytes.Buffer
	cmd := exec.Command(bin, "--project="+project, "--host=127.0.0.1", "--port="+strconv.Itoa(port),
		"--grpc-port="+strconv.Itoa(grpcPort), "--data-from-yaml="+yamlPath, "--log-level=error")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the BigQuery emulator: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	e := &BigQueryEmulator{Host: "127.0.0.1:" + strconv.Itoa(port)}
	e.URL = "http://" + e.Host
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(e.URL + "/bigquery/v2/projects/" + project + "/datasets")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return e
			}
		}
		select {
		case <-done:
			t.Fatalf("the BigQuery emulator exited: %s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the BigQuery emulator did not answer in 60 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort is a loopback port free now, for a server started next.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// bigQueryEmulatorBin returns the emulator's binary: $BIGQUERY_EMULATOR_BIN, or the one built
// from the tools module, building it under a lock that other test processes wait on.
func bigQueryEmulatorBin() (string, error) {
	if p := os.Getenv(EnvBigQueryEmulatorBin); p != "" {
		return p, nil
	}
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot find the tools module")
	}
	mod := filepath.Join(filepath.Dir(self), "..", "tools", "bigquery-emulator")
	sum, err := os.ReadFile(filepath.Join(mod, "go.sum"))
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(sum)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "alertchat-test", "bigquery-emulator-"+hex.EncodeToString(h[:6]))
	bin := filepath.Join(dir, "bigquery-emulator")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	err = testinstall.Once(filepath.Join(dir, "building"), bqBuildWait, func() bool {
		_, err := os.Stat(bin)
		return err == nil
	}, func() error {
		tmp := bin + ".tmp"
		ctx, cancel := context.WithTimeout(context.Background(), bqBuildWait)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-C", mod, "-o", tmp, "github.com/goccy/bigquery-emulator/cmd/bigquery-emulator")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build in %s: %v\n%s", mod, err, out)
		}
		return os.Rename(tmp, bin)
	})
	return bin, err
}
