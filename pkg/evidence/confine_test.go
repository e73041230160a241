package evidence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile builds a case folder with everything an attacker could plant: a symlink to a file
// and to a folder outside, a symlink to a hidden file inside, hidden files and folders, a
// FIFO, a symlink to a device. Outside it sits a secret nobody may read.
func hostile(t testing.TB) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir, outside = filepath.Join(base, "case"), filepath.Join(base, "secret")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sub"), filepath.Join(dir, ".git"), filepath.Join(dir, "sub", ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w(filepath.Join(outside, "passwd"), "root:SECRET-OUTSIDE:0:0\n")
	w(filepath.Join(outside, "data.ndjson"), `{"secret":"SECRET-OUTSIDE"}`+"\n")
	w(filepath.Join(dir, ".env"), "GEMINI_API_KEY=SECRET-DOTENV\n")
	w(filepath.Join(dir, ".git", "config"), "SECRET-GIT\n")
	w(filepath.Join(dir, "sub", ".ssh", "id_ed25519"), "SECRET-SSH\n")
	w(filepath.Join(dir, "sub", "ok.log"), "an ordinary line\n")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "passwd"), filepath.Join(dir, "passwd.log")))
	must(os.Symlink(outside, filepath.Join(dir, "out")))
	must(os.Symlink("../../secret/data.ndjson", filepath.Join(dir, "sub", "rel.ndjson")))
	must(os.Symlink(".env", filepath.Join(dir, "env.log")))
	must(os.Symlink("sub/ok.log", filepath.Join(dir, "fine.log")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero.log")))
	must(mkfifo(filepath.Join(dir, "pipe.log")))
	return dir, outside
}

func TestConfinement(t *testing.T) {
	t.Parallel()
	dir, _ := hostile(t)
	s := openSet(t, dir)
	// Only the two ordinary files are listed.
	var paths []string
	for _, f := range call(t, s, "list_evidence", nil)["files"].([]any) {
		paths = append(paths, f.(map[string]any)["path"].(string))
	}
	if strings.Join(paths, " ") != "fine.log sub/ok.log" {
		t.Errorf("listed %v, want fine.log and sub/ok.log only", paths)
	}
	// Nothing outside or hidden is found by grep over everything.
	g := call(t, s, "grep_evidence", map[string]any{"pattern": "SECRET"})
	if n := len(g["matches"].([]any)); n != 0 {
		t.Errorf("grep found %d secret lines: %v", n, g)
	}
	outsidePaths := []string{
		"../secret/passwd", "sub/../../secret/passwd", "/etc/passwd", filepath.Join(dir, "sub/ok.log"),
		".env", ".git", ".git/config", "sub/.ssh/id_ed25519", "sub/.ssh", "./.env",
		"passwd.log", "out", "out/passwd", "sub/rel.ndjson", "env.log", "zero.log", "pipe.log",
		`sub\..\..\secret`, "sub/\x00", "..", "../", "sub/..",
	}
	for _, p := range outsidePaths {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"list_evidence", map[string]any{"path": p}},
			{"grep_evidence", map[string]any{"pattern": "SECRET|ordinary", "path": p}},
		} {
			got := call(t, s, c.tool, c.args)
			if got["error"] != ErrOutside {
				b, _ := json.Marshal(got)
				t.Errorf("%s path=%q: %s, want the outside error", c.tool, p, b)
			}
		}
	}
	// Inside paths still work, through an inside symlink too.
	for _, p := range []string{"sub/ok.log", "fine.log", "sub", "./sub/ok.log", "sub//ok.log"} {
		got := call(t, s, "grep_evidence", map[string]any{"pattern": "ordinary", "path": p})
		if ms, _ := got["matches"].([]any); len(ms) != 1 {
			t.Errorf("grep path=%q: %v, want one match", p, got)
		}
	}
	// SQL cannot reach files either: no ATTACH, no table for anything outside.
	for _, q := range []string{
		`SELECT * FROM rel`, `SELECT * FROM sub_rel`, `SELECT * FROM out_data`,
	} {
		got := call(t, s, "query_evidence", map[string]any{"sql": q})
		if e, _ := got["error"].(string); !strings.HasPrefix(e, "no such table") {
			t.Errorf("%s: %v", q, got)
		}
	}
}

// TestResolvedPathChecked: a file that was inside when listed and is swapped for a symlink
// out before it is opened is refused when opened (the resolved path is checked at open).
func TestResolvedPathChecked(t *testing.T) {
	t.Parallel()
	dir, outside := hostile(t)
	s := openSet(t, dir)
	f := s.folders[0]
	if _, _, err := f.open("sub/ok.log"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sub", "ok.log")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "passwd"), p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.open("sub/ok.log"); err != errOutside {
		t.Errorf("open after the swap: %v, want outside", err)
	}
	if _, err := openEntry(entry{f: f, rel: "sub/ok.log"}, bombFloor); err != errOutside {
		t.Errorf("openEntry after the swap: %v, want outside", err)
	}
}

func FuzzCleanRel(f *testing.F) {
	for _, s := range []string{"", ".", "a/b", "../x", "a/../../b", "/etc", ".env", "a/.git/x", "a//b", "./a", `a\..\b`, "a/./b", "...", "a/..b", "a/b/", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := cleanRel(p)
		if err != nil {
			return
		}
		if filepath.IsAbs(c) || strings.HasPrefix(c, "/") {
			t.Fatalf("%q -> absolute %q", p, c)
		}
		for _, el := range strings.Split(c, "/") {
			if el == ".." || strings.HasPrefix(el, ".") {
				t.Fatalf("%q -> %q has element %q", p, c, el)
			}
		}
		root := "/root/case"
		if j := filepath.Join(root, c); j != root && !strings.HasPrefix(j, root+"/") {
			t.Fatalf("%q -> %q leaves the root: %s", p, c, j)
		}
	})
}

// FuzzConfinedOpen opens whatever path the fuzzer makes in the hostile folder: anything that
// opens must resolve inside the folder, to a regular file, never hidden.
func FuzzConfinedOpen(f *testing.F) {
	dir, _ := hostile(f)
	s, err := Open([]string{dir}, Options{CacheDir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	root := s.folders[0].root
	for _, p := range []string{"sub/ok.log", "fine.log", "passwd.log", "out/passwd", "sub/rel.ndjson", "env.log", "pipe.log", "zero.log", "sub/../fine.log", "sub/.ssh/id_ed25519"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		fo, rel, err := s.locate(p)
		if err != nil {
			return
		}
		fd, fi, err := fo.open(rel)
		if err != nil {
			return
		}
		defer fd.Close()
		if !fi.Mode().IsRegular() {
			t.Fatalf("%q opened a %v", p, fi.Mode())
		}
		real, err := filepath.EvalSymlinks(fd.Name())
		if err != nil || !strings.HasPrefix(real, root+"/") {
			t.Fatalf("%q opened %q outside %q", p, real, root)
		}
		b := make([]byte, 64)
		n, _ := fd.Read(b)
		if strings.Contains(string(b[:n]), "SECRET") {
			t.Fatalf("%q read a secret: %q", p, b[:n])
		}
	})
}

// snapshot is every entry under dir: its kind, size, time and content hash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String() + " " + fi.ModTime().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNothingWrittenIntoFolder runs every tool, index builds included, and finds the folder
// exactly as it was; a cache directory inside the folder is refused.
func TestNothingWrittenIntoFolder(t *testing.T) {
	t.Parallel()
	dir := caseFolder(t)
	before := snapshot(t, dir)
	s := openSet(t, dir)
	call(t, s, "list_evidence", nil)
	call(t, s, "grep_evidence", map[string]any{"pattern": "alice", "context": 2.0})
	for _, q := range []string{"SELECT * FROM aws_cloudtrail", "SELECT * FROM dns", "SELECT * FROM hosts"} {
		if got := call(t, s, "query_evidence", map[string]any{"sql": q}); got["error"] != nil {
			t.Fatal(got)
		}
	}
	call(t, s, "list_evidence", nil)
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		t.Errorf("the folder changed:\nbefore %v\nafter  %v", before, after)
	}
	in, err := Open([]string{dir}, Options{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	got := call(t, in, "query_evidence", map[string]any{"sql": "SELECT * FROM dns"})
	if e, _ := got["error"].(string); !strings.Contains(e, "inside an evidence folder") {
		t.Errorf("cache inside the folder: %v", got)
	}
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		t.Errorf("the folder changed with the cache inside it")
	}
}

func TestOpenFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.log")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(dir, "missing"), "evidence folder " + filepath.Join(dir, "missing") + " does not exist"},
		{file, "evidence folder " + file + " is not a folder"},
	} {
		_, err := Open([]string{c.dir}, Options{CacheDir: t.TempDir()})
		if err == nil || err.Error() != c.want {
			t.Errorf("Open(%s) = %v, want %q", c.dir, err, c.want)
		}
	}
	_ = context.Background
}
