// Package infile is how rdma-bench reads an input file: a regular file,
// or a stream (a FIFO, /dev/stdin) only when the user named it, and never
// more than a size limit, so that a FIFO found in a directory cannot hang
// a reader and a link to /dev/zero cannot fill its memory.
package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// MaxBytes is the largest file read; a variable so that tests can lower it.
var MaxBytes int64 = 256 << 20

// Read reads a file the user named: a regular file, or a stream such as a
// FIFO or /dev/stdin, which is read to its end. A directory or a device
// that is neither is refused, and so is anything larger than MaxBytes.
// ctx ends a wait: for a FIFO no writer has opened yet, or for a stream
// that sends nothing; the error is then ctx's cause.
func Read(ctx context.Context, path string) ([]byte, error) {
	f, fi, err := openContext(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch m := fi.Mode(); {
	case m.IsRegular(), m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0 && path == "/dev/stdin":
	default:
		return nil, fmt.Errorf("%s: want a regular file or a stream (a FIFO, /dev/stdin)", kind(m))
	}
	// A stream is in Go's poller (os.OpenFile puts it there), where a
	// deadline ends a read that waits; a regular file never waits.
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	defer stop()
	b, err := readLimited(f)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return b, err
}

// openContext opens path for reading as open does, returning when ctx
// ends: opening a FIFO waits for a writer, and is then released by
// opening it for writing.
func openContext(ctx context.Context, path string) (*os.File, fs.FileInfo, error) {
	type opened struct {
		f   *os.File
		fi  fs.FileInfo
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, fi, err := open(path, os.O_RDONLY)
		done <- opened{f, fi, err}
	}()
	select {
	case o := <-done:
		return o.f, o.fi, o.err
	case <-ctx.Done():
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
	select {
	case o := <-done:
		if o.f != nil {
			o.f.Close()
		}
	case <-time.After(time.Second): // not a FIFO's wait: left to the process's end
	}
	return nil, nil, context.Cause(ctx)
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
