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
		return nil, fmt.Errorf("%s: want a regular file or a stream (a FIFO, /dev/stdin)", kind(m))
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
		return nil, fmt.Errorf("%s: want a regular file (a FIFO is read only when named itself)", kind(fi.Mode()))
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

// kind names what a file that is not a regular one is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
