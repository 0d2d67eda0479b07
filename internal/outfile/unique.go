package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxSuffix bounds the search for a free name in CreateNew.
const maxSuffix = 10000

// NewFile is a new file in a directory whose name is chosen at Commit:
// never an existing file's.
type NewFile struct {
	*File
	dir, base, ext string
}

// CreateNew starts a file in dir (created if missing) that Commit names
// base+ext, or base-N+ext for the smallest free N, replacing nothing.
func CreateNew(dir, base, ext string) (*NewFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create directory %s: %w", dir, unwrap(err))
	}
	dest := filepath.Join(dir, base+ext)
	removeStale(dest)
	tmp, err := os.CreateTemp(dir, tempPattern(dest))
	if err != nil {
		return nil, fmt.Errorf("cannot create a file in directory %s: %w", dir, unwrap(err))
	}
	return &NewFile{File: &File{path: dest, dest: dest, tmp: tmp, mode: atomic}, dir: dir, base: base, ext: ext}, nil
}

// Commit gives the file its name and returns its path.
func (n *NewFile) Commit() (string, error) {
	t := n.tmp
	err := t.Chmod(0o644)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	path := ""
	if err == nil {
		path, err = n.place()
	}
	_ = os.Remove(t.Name()) // linked under its name, or failed
	if err != nil {
		return "", fmt.Errorf("saving in %s: %w", n.dir, unwrap(err))
	}
	syncDir(n.dir)
	n.path = path
	return path, nil
}

// place links the pending file under the first free name: a hard link
// fails if the name exists, so no file is ever replaced.
func (n *NewFile) place() (string, error) {
	for i := 0; i < maxSuffix; i++ {
		name := n.base + n.ext
		if i > 0 {
			name = fmt.Sprintf("%s-%d%s", n.base, i, n.ext)
		}
		path := filepath.Join(n.dir, name)
		err := os.Link(n.tmp.Name(), path)
		if err == nil {
			return path, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links here (some file systems): check, then rename.
		if _, statErr := os.Lstat(path); statErr == nil {
			continue
		} else if !errors.Is(statErr, fs.ErrNotExist) {
			return "", statErr
		}
		return path, os.Rename(n.tmp.Name(), path)
	}
	return "", fmt.Errorf("no free file name for %s%s", n.base, n.ext)
}

// CheckDir makes sure dir exists (creating it) and takes new files, so a
// run that will save there learns at once if it cannot.
func CheckDir(dir string) error {
	f, err := CreateNew(dir, ".rdma-bench-check", "")
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}
