package outfile

import (
	"errors"
	"os"
	"path/filepath"
)

// ProbeDir checks that files can be made in dir, creating it for the
// check when missing and removing again what it created: a directory
// that output will be written into later is refused before anything
// runs, and nothing is left behind when it is fine.
func ProbeDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return errors.New("not a directory")
		}
		return CheckDir(dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// The directories that do not exist yet, deepest first.
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		made = append(made, d)
	}
	defer func() {
		for _, d := range made {
			os.Remove(d)
		}
	}()
	return CheckDir(dir)
}
