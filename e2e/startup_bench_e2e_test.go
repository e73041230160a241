package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// BenchmarkStartup is what a run costs before it does anything, in the binary `go install`
// builds (no build tags): `--version`, and the TAB after `history show` on 10,000 stored
// histories, which a shell pays on every TAB. Each op is one run of the process; besides the wall
// time it reports the median wall time and the process's CPU time (user and system), which moves
// less on a shared machine.
//
// ALERTCHAT_STARTUP_BINS, a space-separated list of binaries, measures them instead of a build of
// this tree: each op runs every one of them once, in turn, so that a load on the machine falls on
// all alike; the metrics are per binary (b0-, b1-, ... in the order given), and each one's CPU
// time and median wall time as a ratio to the first's.
func BenchmarkStartup(b *testing.B) {
	bins := strings.Fields(os.Getenv("ALERTCHAT_STARTUP_BINS"))
	if len(bins) == 0 {
		startup.build.Do(func() { startup.bin = buildPlainIn(b, filepath.Dir(binary)) })
		bins = []string{startup.bin}
	}
	startup.seed.Do(func() {
		startup.dataDir = seedStartupHistories(b, filepath.Join(filepath.Dir(binary), "startup-data"), 10_000)
	})
	dataDir := startup.dataDir
	if dataDir == "" {
		b.Fatal("seeding the histories failed in an earlier round")
	}
	for _, bc := range []struct {
		name  string
		args  []string
		lines int // of stdout
	}{
		{"version", []string{"--version"}, 1},
		{"complete-history-show-10k", []string{"--data-dir", dataDir, "history", "show", "--generate-shell-completion"}, 200},
	} {
		b.Run(bc.name, func(b *testing.B) {
			walls := make([][]time.Duration, len(bins))
			cpus := make([]time.Duration, len(bins))
			for b.Loop() {
				for i, bin := range bins {
					wall, cpu := runStartup(b, bin, dataDir, bc.args, bc.lines)
					walls[i] = append(walls[i], wall)
					cpus[i] += cpu
				}
			}
			if len(bins) == 1 {
				b.ReportMetric(median(walls[0]), "median-ms")
				b.ReportMetric(ms(cpus[0])/float64(len(walls[0])), "cpu-ms/op")
				return
			}
			for i := range bins {
				p := fmt.Sprintf("b%d-", i)
				b.ReportMetric(median(walls[i]), p+"median-ms")
				b.ReportMetric(ms(cpus[i])/float64(len(walls[i])), p+"cpu-ms/op")
				if i > 0 {
					b.ReportMetric(median(walls[i])/median(walls[0]), p+"median/b0")
					b.ReportMetric(ms(cpus[i])/ms(cpus[0]), p+"cpu/b0")
				}
			}
		})
	}
}

// runStartup runs bin with args, checks it printed lines lines, and returns its wall and CPU
// time.
func runStartup(b *testing.B, bin, dataDir string, args []string, lines int) (wall, cpu time.Duration) {
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HOME=" + dataDir, "PATH=" + os.Getenv("PATH")}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall = time.Since(start)
	if got := strings.Count(out.String(), "\n"); err != nil || got != lines {
		b.Fatalf("%s %v: %v, %d lines, want %d: %s", bin, args, err, got, lines, errOut.String())
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return ms(s[len(s)/2])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// buildPlainIn builds the binary without the race detector or build tags into dir.
func buildPlainIn(b *testing.B, dir string) string {
	bin := filepath.Join(dir, "alertchat-plain")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		b.Fatalf("build: %v: %s", err, out)
	}
	return bin
}

// startup holds what every round of BenchmarkStartup shares: the build and the seeded store.
var startup struct {
	build, seed  sync.Once
	bin, dataDir string
}

// seedStartupHistories writes n histories with titles to a local store in dir and returns dir
// ("" on failure).
func seedStartupHistories(b *testing.B, dir string, n int) string {
	b.Helper()
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
	if err != nil {
		b.Error(err)
		return ""
	}
	defer s.Close()
	for i := range n {
		h := storetest.NewHistory(record.AlertID(fmt.Sprintf("alert-%d", i%50)), []*genai.Content{genai.NewContentFromText("q", genai.RoleUser)})
		h.Title = fmt.Sprintf("Investigation %d of a GuardDuty finding", i)
		if err := s.SaveHistory(ctx, h); err != nil {
			b.Error(err)
			return ""
		}
	}
	return dir
}
