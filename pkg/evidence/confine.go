package evidence

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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

// resolve follows rel's symlinks and checks the result is still inside f.
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
	return resolved, nil
}

// open opens the regular file rel of f for reading. The path is resolved and checked first;
// the open itself follows no final symlink (O_NOFOLLOW) and does not block on a FIFO
// (O_NONBLOCK), and what was opened must be a regular file (a device or FIFO is refused).
func (f folder) open(rel string) (*os.File, fs.FileInfo, error) {
	resolved, err := f.resolve(rel)
	if err != nil {
		return nil, nil, err
	}
	fd, err := os.OpenFile(resolved, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
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
	return fd, fi, nil
}

// entry is a regular file found in a folder.
type entry struct {
	f    folder
	rel  string // slash-separated, inside f
	size int64
	mod  int64 // modification time, Unix nanoseconds
}

func (e entry) logical() string { return e.f.logical(e.rel) }

// walk calls fn for every regular file under rel (a folder or one file) in f, in path order.
// Hidden entries are skipped; a symlink is followed only to a regular file inside f (a
// symlinked folder is not entered, so there are no loops); devices, FIFOs and sockets are
// skipped. fn returning false stops the walk.
func (f folder) walk(rel string, fn func(entry) bool) error {
	resolved, err := f.resolve(rel)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(resolved)
	if err != nil {
		return errNotFound
	}
	switch {
	case fi.Mode().IsRegular():
		fn(entry{f: f, rel: rel, size: fi.Size(), mod: fi.ModTime().UnixNano()})
		return nil
	case !fi.IsDir():
		return errOutside
	}
	f.walkDir(resolved, rel, fn)
	return nil
}

func (f folder) walkDir(dir, rel string, fn func(entry) bool) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return true // unreadable: nothing to list
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
		full := filepath.Join(dir, name)
		switch t := d.Type(); {
		case t.IsDir():
			if !f.walkDir(full, r, fn) {
				return false
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err == nil && !fn(entry{f: f, rel: r, size: fi.Size(), mod: fi.ModTime().UnixNano()}) {
				return false
			}
		case t&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(full)
			if err != nil || !f.inside(target) {
				continue
			}
			fi, err := os.Stat(target)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if !fn(entry{f: f, rel: r, size: fi.Size(), mod: fi.ModTime().UnixNano()}) {
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
