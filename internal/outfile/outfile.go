// Package outfile is the one way rdma-bench writes an output file, in the
// spirit of google/renameio: a pending file is written, then committed
// whole or aborted.
//
// What a path names decides how it is written:
//   - a regular file, or a name that does not exist yet: written under a
//     temporary name in the same directory and renamed into place, so the
//     path only ever holds a complete file;
//   - a symbolic link: followed, and its target written by these same
//     rules (a link to a regular file replaces the target, never the link);
//   - "-" or "", a device, a FIFO or a socket (such as /dev/stdout or
//     /dev/null): written in place, without rename, once complete;
//   - a directory: refused.
//
// A temporary file left by a killed run is removed by the next run that
// writes the same path.
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Rules says in a sentence what an output path may be, for --help.
const Rules = "a regular file is replaced only once complete; a symlink is followed to its target; a device, FIFO or - is written in place; a directory is refused"

// maxLinks bounds how many symbolic links are followed.
const maxLinks = 40

// File is an output being written; nothing reaches its path before Commit.
type File struct {
	path string   // what the user named
	dest string   // where an atomic file lands (the link's target)
	tmp  *os.File // atomic: the pending file
	buf  bytes.Buffer
	mode target
	out  io.Writer // stdout's writer: os.Stdout unless CreateTo named one
}

type target int

const (
	atomic  target = iota // temporary file renamed over dest
	inPlace               // dest opened and written at Commit
	stdout                // written to the process's standard output
	stderr                // written to the process's standard error
)

// Create starts writing path. An unusable path (a directory, a missing or
// unwritable directory) fails here, before anything is measured.
func Create(path string) (*File, error) {
	return CreateTo(path, os.Stdout)
}

// CreateTo is Create with stdout as what "" and "-" name: a command run
// in-process (the gate's worker) writes its standard output there.
func CreateTo(path string, w io.Writer) (*File, error) {
	if path == "" || path == "-" {
		return &File{path: "-", mode: stdout, out: w}, nil
	}
	dest, fi, err := resolve(path)
	if err != nil {
		return nil, err
	}
	switch {
	case fi == nil || fi.Mode().IsRegular():
		removeStale(dest)
		tmp, err := os.CreateTemp(filepath.Dir(dest), tempPattern(dest))
		if err != nil {
			return nil, fmt.Errorf("%s: cannot create a file in directory %s: %w", path, filepath.Dir(dest), unwrap(err))
		}
		return &File{path: path, dest: dest, tmp: tmp, mode: atomic}, nil
	case fi.IsDir():
		return nil, fmt.Errorf("%s: is a directory: want a file, a device, a FIFO or - (standard output)", path)
	}
	f := &File{path: path, dest: path, mode: inPlace}
	if same(fi, os.Stdout) {
		f.mode = stdout
	} else if same(fi, os.Stderr) {
		f.mode = stderr
	}
	return f, nil
}

// Check says whether path could be written, creating and removing its
// pending file.
func Check(path string) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// WriteFile writes b to path by the package's rules.
func WriteFile(path string, b []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	return f.CommitBytes(b)
}

// CommitBytes writes b and commits, for an output made whole before it
// is written; a failed write aborts.
func (f *File) CommitBytes(b []byte) error {
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// Path is the path the file was created with ("-": standard output).
func (f *File) Path() string { return f.path }

// Write adds p to the pending file.
func (f *File) Write(p []byte) (int, error) {
	if f.mode == atomic {
		n, err := f.tmp.Write(p)
		if err != nil {
			err = fmt.Errorf("writing %s: %w", f.path, unwrap(err))
		}
		return n, err
	}
	return f.buf.Write(p)
}

// Commit makes what was written the file's content. A device, FIFO or
// standard output is opened and written only now, so a FIFO without a
// reader cannot stall the run before it measures.
func (f *File) Commit() error {
	switch f.mode {
	case stdout:
		w := f.out
		if w == nil { // a device that is this process's standard output
			w = os.Stdout
		}
		return writeAll(w, f.path, f.buf.Bytes())
	case stderr:
		return writeAll(os.Stderr, f.path, f.buf.Bytes())
	case inPlace:
		w, err := os.OpenFile(f.dest, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.path, unwrap(err))
		}
		err = writeAll(w, f.path, f.buf.Bytes())
		if cerr := w.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing %s: %w", f.path, unwrap(cerr))
		}
		return err
	}
	err := f.tmp.Chmod(0o644)
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.dest)
	}
	if err != nil {
		_ = os.Remove(f.tmp.Name())
		return fmt.Errorf("writing %s: %w", f.path, unwrap(err))
	}
	syncDir(filepath.Dir(f.dest))
	return nil
}

// Abort drops what was written; the path keeps its old content. Safe to
// call after Commit or more than once.
func (f *File) Abort() {
	f.buf.Reset()
	if f.tmp != nil {
		_ = f.tmp.Close()
		_ = os.Remove(f.tmp.Name())
	}
}

// resolve follows path's symbolic links to the file they name and returns
// it with its information, nil when it does not exist yet. A link the
// kernel resolves by itself (/proc/self/fd/N, behind /dev/stdout) names an
// open file rather than a path: its target is reported as a device so that
// it is written in place.
func resolve(path string) (string, fs.FileInfo, error) {
	p := path
	for i := 0; ; i++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return p, nil, nil // creating the file says what is wrong
		}
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", path, unwrap(err))
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, fi, nil
		}
		if i == maxLinks {
			return "", nil, fmt.Errorf("%s: more than %d symbolic links: want a file", path, maxLinks)
		}
		if abs, _ := filepath.Abs(p); strings.HasPrefix(abs, "/proc/") {
			fi, err := os.Stat(p)
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", path, unwrap(err))
			}
			return path, procFile{fi}, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", path, unwrap(err))
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
}

// procFile is a file reached through /proc: never renamed over.
type procFile struct{ fs.FileInfo }

func (p procFile) Mode() fs.FileMode {
	if p.FileInfo.IsDir() {
		return p.FileInfo.Mode()
	}
	return p.FileInfo.Mode() | fs.ModeDevice
}

func same(fi fs.FileInfo, f *os.File) bool {
	if pf, ok := fi.(procFile); ok {
		fi = pf.FileInfo
	}
	st, err := f.Stat()
	return err == nil && os.SameFile(fi, st)
}

func writeAll(w io.Writer, path string, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrap(err))
	}
	return nil
}

// syncDir makes a new directory entry durable; best effort.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
