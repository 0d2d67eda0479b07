// Package infile is how rdma-bench reads an input file: a regular file,
// or a stream (a FIFO, /dev/stdin) only when the user named it, and never
// more than a size limit, so that a FIFO found in a directory cannot hang
// a reader and a link to /dev/zero cannot fill its memory.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxBytes is the largest file read; a variable so that tests can lower it.
var MaxBytes int64 = 256 << 20

// Read reads a file the user named: a regular file, or a stream such as a
// FIFO or /dev/stdin, which is read to its end. A directory or a device
// that is neither is refused, and so is anything larger than MaxBytes.
func Read(path string) ([]byte, error) {
	f, fi, err := open(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch m := fi.Mode(); {
	case m.IsRegular(), m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0 && path == "/dev/stdin":
	default:
		return nil, notRegular(m)
	}
	return readLimited(f)
}

// ReadRegular reads a file found rather than named (in a directory, by a
// pattern): only a regular file, opened so that a FIFO cannot block.
func ReadRegular(path string) ([]byte, error) {
	f, fi, err := open(path, os.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	return readLimited(f)
}

// open opens path and says what it is.
func open(path string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, nil, unwrap(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, unwrap(err)
	}
	return f, fi, nil
}

func readLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, unwrap(err)
	}
	if int64(len(b)) > MaxBytes {
		return nil, fmt.Errorf("larger than %d bytes, the most rdma-bench reads", MaxBytes)
	}
	return b, nil
}

func notRegular(m fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("%s, not a regular file", kind)
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
