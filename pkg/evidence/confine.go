package evidence

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// errOutside is ErrOutside as an error; errNotFound a confined path that names nothing.
var (
	errOutside  = errors.New(ErrOutside)
	errNotFound = errors.New("no such file in the evidence folders")
)

// cleanRel checks a path the model gave and returns it cleaned ("" for the folder itself).
// Refused, whatever the file system holds: an absolute path, a ".." element, a hidden element
// (".env", ".git", ".ssh"), a NUL or a backslash (a Windows separator an attacker could hide
// ".." behind).
func cleanRel(p string) (string, error) {
	if strings.ContainsAny(p, "\x00\\") {
		return "", errOutside
	}
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", errOutside
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." || (strings.HasPrefix(el, ".") && el != ".") {
			return "", errOutside
		}
	}
	c := path.Clean("/" + p)[1:] // no ".." is left, so Clean only removes "." and "//"
	return c, nil
}

// locate maps a logical path (relative; with several folders it starts with the folder's
// name) to its folder and the path inside it.
func (s *Set) locate(p string) (folder, string, error) {
	rel, err := cleanRel(p)
	if err != nil {
		return folder{}, "", err
	}
	if len(s.folders) == 1 {
		return s.folders[0], rel, nil
	}
	head, rest, _ := strings.Cut(rel, "/")
	for _, f := range s.folders {
		if f.name == head {
			return f, rest, nil
		}
	}
	return folder{}, "", errNotFound
}

// logical is the path the model sees for rel inside f.
func (f folder) logical(rel string) string {
	if f.name == "" {
		return rel
	}
	if rel == "" {
		return f.name
	}
	return f.name + "/" + rel
}

// inside reports whether resolved (a path with every symlink followed) lies in f and names no
// hidden entry on the way.
func (f folder) inside(resolved string) bool {
	if f.gcs != nil {
		return false // a bucket holds no local path
	}
	rel, err := filepath.Rel(f.root, resolved)
	if err != nil {
		return false
	}
	if rel == "." {
		return true
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false
	}
	return !slices.ContainsFunc(strings.Split(rel, string(filepath.Separator)), func(el string) bool {
		return strings.HasPrefix(el, ".")
	})
}

// resolve follows rel's symlinks and checks the result is still inside f. It returns the
// resolved path relative to f's root (OS separators; "." for the root).
func (f folder) resolve(rel string) (string, error) {
	full := filepath.Join(f.root, filepath.FromSlash(rel))
	resolved, err := filepath.EvalSymlinks(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errNotFound
		}
		return "", errOutside
	}
	if !f.inside(resolved) {
		return "", errOutside
	}
	r, err := filepath.Rel(f.root, resolved)
	if err != nil {
		return "", errOutside
	}
	return r, nil
}

// open opens the regular file rel of f for reading. The path is resolved and checked first
// (symlinks inside the folder, hidden names); the open itself goes through f's os.Root, so
// the kernel keeps it inside the folder even if a folder on the way was swapped for a symlink
// since. The file opened must be the one the resolved path names itself (a final symlink put
// there since is refused), a regular file (not a device or FIFO; the open does not block on
// one), with one name: a hard link can be a file from outside the folder.
func (f folder) open(rel string) (*os.File, fs.FileInfo, error) {
	r, err := f.resolve(rel)
	if err != nil {
		return nil, nil, err
	}
	fd, err := f.r.OpenFile(r, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, errNotFound
		}
		return nil, nil, errOutside
	}
	fi, err := fd.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		_ = fd.Close()
		return nil, nil, errOutside
	}
	if li, err := f.r.Lstat(r); err != nil || !os.SameFile(fi, li) {
		_ = fd.Close()
		return nil, nil, errOutside
	}
	if n := linkCount(fd, fi); n > 1 {
		_ = fd.Close()
		return nil, nil, userErrorf("%s is a hard link (%d names), which may be a file from outside the folder: not read", f.logical(rel), n)
	}
	return fd, fi, nil
}

// fileStamp tells versions of a file apart that have the same size and modification time
// (platform-specific: stat_*.go).
type fileStamp struct {
	dev, ino uint64
	ctime    int64
}

// entry is a regular file found in a folder.
type entry struct {
	f     folder
	rel   string // slash-separated, inside f
	size  int64
	mod   int64 // modification time, Unix nanoseconds
	stamp fileStamp
}

func newEntry(f folder, rel string, fi fs.FileInfo) entry {
	return entry{f: f, rel: rel, size: fi.Size(), mod: fi.ModTime().UnixNano(), stamp: stampOf(fi)}
}

func (e entry) logical() string { return e.f.logical(e.rel) }

// evidenceFile is an open file or object: streamed by Read, or read in place by ReadAt.
type evidenceFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// open opens e's file (confined as folder.open says) or object (the generation listed), and
// returns its size.
func (e entry) open() (evidenceFile, int64, error) {
	if e.f.gcs != nil {
		o, err := e.f.gcs.open(e.rel, e.mod, e.size)
		return o, e.size, err
	}
	fd, fi, err := e.f.open(e.rel)
	if err != nil {
		return nil, 0, err
	}
	return fd, fi.Size(), nil
}

// walk calls fn for every regular file under rel (a folder or one file) in f, in path order.
// Hidden entries are skipped; a symlink is followed only to a regular file inside f (a
// symlinked folder is not entered, so there are no loops); devices, FIFOs and sockets are
// skipped. fn returning false stops the walk. Folders are read through f's os.Root: one
// swapped for a symlink out during the walk cannot be read.
func (f folder) walk(rel string, fn func(entry) bool) error {
	if f.gcs != nil {
		return f.gcs.walk(f, rel, fn)
	}
	r, err := f.resolve(rel)
	if err != nil {
		return err
	}
	fi, err := f.r.Lstat(r)
	if err != nil {
		return errNotFound
	}
	switch {
	case fi.Mode().IsRegular():
		fn(newEntry(f, rel, fi))
		return nil
	case !fi.IsDir():
		return errOutside
	}
	f.walkDir(filepath.ToSlash(r), rel, fn)
	return nil
}

// walkDir walks dir (slash-separated, relative to the root; "." for the root itself), whose
// logical path is rel.
func (f folder) walkDir(dir, rel string, fn func(entry) bool) bool {
	ents, err := fs.ReadDir(f.r.FS(), dir)
	if err != nil {
		return true // unreadable, or no longer inside: nothing to list
	}
	for _, d := range ents { // ReadDir sorts by name
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		sub := path.Join(dir, name)
		switch t := d.Type(); {
		case t.IsDir():
			if !f.walkDir(sub, r, fn) {
				return false
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err == nil && !fn(newEntry(f, r, fi)) {
				return false
			}
		case t&fs.ModeSymlink != 0:
			target, err := f.resolve(sub)
			if err != nil {
				continue
			}
			fi, err := f.r.Lstat(target)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if !fn(newEntry(f, r, fi)) {
				return false
			}
		}
	}
	return true
}

// files lists the regular files under the logical path p ("" for every folder), in order.
func (s *Set) files(p string, fn func(entry) bool) error {
	if p == "" && len(s.folders) > 1 {
		for _, f := range s.folders {
			stop := false
			if err := f.walk("", func(e entry) bool {
				if !fn(e) {
					stop = true
					return false
				}
				return true
			}); err != nil {
				return err
			}
			if stop {
				return nil
			}
		}
		return nil
	}
	f, rel, err := s.locate(p)
	if err != nil {
		return err
	}
	return f.walk(rel, fn)
}
