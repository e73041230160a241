package history_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/pkg/fsck"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func fsckJSON(t *testing.T, dir string, args ...string) ([]fsck.Finding, string, int) {
	t.Helper()
	out, errOut, code := clitest.Run(t, dir, "", append([]string{"history", "fsck", "-o", "json"}, args...)...)
	var fs []fsck.Finding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("fsck -o json printed %q (stderr %q): %v", out, errOut, err)
	}
	return fs, errOut, code
}

func kinds(fs []fsck.Finding) map[string][]fsck.Finding {
	m := map[string][]fsck.Finding{}
	for _, f := range fs {
		m[f.Kind] = append(m[f.Kind], f)
	}
	return m
}

func age(t *testing.T, path string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

func TestFsckLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	healthy := storetest.NewHistory("a", storetest.EveryPartKind())
	missing := storetest.NewHistory("a", storetest.EveryPartKind())
	corrupt := storetest.NewHistory("a", storetest.EveryPartKind())
	behind := storetest.NewHistory("a", storetest.EveryPartKind()[:2])
	clitest.SeedHistories(t, dir, "default", healthy, missing, corrupt, behind)
	other := storetest.NewHistory("a", storetest.EveryPartKind())
	clitest.SeedHistories(t, dir, "other", other) // another workspace's: never an orphan

	hdir := filepath.Join(dir, "histories")
	if err := os.Remove(clitest.ObjectPath(dir, missing.ID)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clitest.ObjectPath(dir, corrupt.ID), []byte(`[{"role":"user","parts":[{"te`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Content ahead of its metadata, as a crash between the two leaves it: consistent.
	full, _ := store.EncodeTranscript(storetest.EveryPartKind())
	if err := os.WriteFile(clitest.ObjectPath(dir, behind.ID), full, 0o600); err != nil {
		t.Fatal(err)
	}
	orphan := store.NewHistoryID()
	orphanPath := clitest.ObjectPath(dir, orphan)
	if err := os.WriteFile(orphanPath, full, 0o600); err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(hdir, ".tmp-12345")
	if err := os.WriteFile(temp, []byte("[{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hdir, "README.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Young leftovers may belong to a save in progress: notes only.
	fs, _, code := fsckJSON(t, dir)
	if k := kinds(fs); code != 1 || len(k[fsck.KindInProgress]) != 2 || len(k[fsck.KindOrphan]) != 0 {
		t.Fatalf("fsck with young leftovers: exit %d, %+v", code, fs)
	}
	age(t, orphanPath, time.Hour)
	age(t, temp, time.Hour)

	fs, errOut, code := fsckJSON(t, dir)
	k := kinds(fs)
	if code != 1 || !strings.Contains(errOut, "4 problems found") {
		t.Fatalf("fsck: exit %d, stderr %q", code, errOut)
	}
	for kind, want := range map[string]record.HistoryID{fsck.KindMissingContent: missing.ID, fsck.KindCorruptContent: corrupt.ID, fsck.KindOrphan: orphan, fsck.KindStaleMetadata: behind.ID} {
		if len(k[kind]) != 1 || k[kind][0].HistoryID != want {
			t.Errorf("%s: %+v, want history %s", kind, k[kind], want)
		}
	}
	if len(k[fsck.KindTemp]) != 1 || len(k[fsck.KindUnknownObject]) != 1 || k[fsck.KindStaleMetadata][0].Problem {
		t.Errorf("findings %+v", fs)
	}
	if !strings.Contains(k[fsck.KindCorruptContent][0].Detail, string(corrupt.ID)) {
		t.Errorf("the corrupt transcript's report does not name it: %q", k[fsck.KindCorruptContent][0].Detail)
	}

	fs, errOut, code = fsckJSON(t, dir, "--repair", "--grace", "0s")
	if code != 0 || !strings.Contains(errOut, "all repaired") {
		t.Fatalf("fsck --repair: exit %d, %q, %+v", code, errOut, fs)
	}
	_, errOut, code = clitest.Run(t, dir, "", "history", "fsck")
	if code != 0 || !strings.Contains(errOut, "No problems found") {
		t.Fatalf("fsck after repair: exit %d, %q", code, errOut)
	}
	// Nothing that may hold a turn was deleted: it is in lost+found.
	lf, _ := os.ReadDir(filepath.Join(dir, "lost+found"))
	var names []string
	for _, e := range lf {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	joined := strings.Join(names, " ")
	for _, id := range []record.HistoryID{orphan, missing.ID, corrupt.ID} {
		if !strings.Contains(joined, string(id)) {
			t.Errorf("lost+found %v lacks %s", names, id)
		}
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Error("the temporary file is still there")
	}
	for _, h := range []*record.History{healthy, behind} {
		if _, err := clitest.GetMeta(t, dir, h.ID); err != nil {
			t.Errorf("healthy history %s: %v", h.ID, err)
		}
	}
	s := clitest.OpenLocal(t, dir, "other")
	defer s.Close()
	if _, err := s.GetHistory(context.Background(), other.ID); err != nil {
		t.Errorf("the other workspace's history: %v", err)
	}
}

// TestKilledSavesLeaveStoreConsistent kills (SIGKILL) a process doing saves at random points,
// many times: every metadata row's transcript exists and parses after each kill, and fsck
// finds nothing but leftovers of interrupted saves, which it repairs.
func TestKilledSavesLeaveStoreConsistent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const iterations = 50
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	ctx := context.Background()
	for i := range iterations {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSaver$")
		cmd.Env = append(os.Environ(), "ALERTCHAT_SAVER_DIR="+dir, "ALERTCHAT_SAVER_SEED="+strconv.Itoa(i))
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until it is saving, then kill it at a random moment.
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "saving\n" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("helper: %q %v", line, err)
		}
		time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()

		s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
		if err != nil {
			t.Fatalf("iteration %d: open after kill: %v", i, err)
		}
		ids, err := s.ListHistoryIDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, err := s.GetHistory(ctx, id); err != nil {
				t.Fatalf("iteration %d: history %s after a kill: %v", i, id, err)
			}
		}
		_ = s.Close()
	}
	fs, errOut, code := fsckJSON(t, dir, "--grace", "0s")
	for _, f := range fs {
		if f.Problem && f.Kind != fsck.KindOrphan && f.Kind != fsck.KindTemp {
			t.Errorf("fsck after kills: %+v", f)
		}
	}
	t.Logf("after %d kills: %d findings (%s)", iterations, len(fs), strings.TrimSpace(errOut))
	if code != 0 {
		if fs, errOut, code = fsckJSON(t, dir, "--grace", "0s", "--repair"); code != 0 {
			t.Fatalf("fsck --repair: exit %d, %q, %+v", code, errOut, fs)
		}
	}
	if _, errOut, code = clitest.Run(t, dir, "", "history", "fsck", "--grace", "0s"); code != 0 {
		t.Fatalf("fsck after repair: exit %d, %q", code, errOut)
	}
}

// TestHelperSaver is the process TestKilledSavesLeaveStoreConsistent kills: it creates and
// extends histories in a loop, with transcripts of up to about 1 MB.
func TestHelperSaver(t *testing.T) {
	dir := os.Getenv("ALERTCHAT_SAVER_DIR")
	if dir == "" {
		t.Skip("helper process of TestKilledSavesLeaveStoreConsistent")
	}
	seed, _ := strconv.Atoi(os.Getenv("ALERTCHAT_SAVER_SEED"))
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(os.Getpid())))
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.ListHistoryIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("saving")
	for n := 0; ; n++ {
		var h *record.History
		if len(ids) > 0 && rng.IntN(3) > 0 {
			if h, err = s.GetHistory(ctx, ids[rng.IntN(len(ids))]); err != nil {
				t.Fatal(err)
			}
		} else {
			h = storetest.NewHistory("a", nil)
			ids = append(ids, h.ID)
		}
		text := strings.Repeat(fmt.Sprintf("turn %d of process %d. ", n, os.Getpid()), 1+rng.IntN(20000))
		h.Contents = append(h.Contents, genai.NewContentFromText("q", genai.RoleUser), genai.NewContentFromText(text, genai.RoleModel))
		h.MessageCount = len(h.Contents)
		if len(h.Contents) > 40 {
			h.Contents = h.Contents[len(h.Contents)-4:]
			h.MessageCount = len(h.Contents)
		}
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
}
