package outfile

import (
	"fmt"
	"io"
	"os"
)

// Stream is an output written as it is produced (a streamed document,
// -o ndjson), so that a run killed on the way leaves what it wrote and a
// reader can follow it: the one exception to writing a file whole. A
// regular file is created, or truncated, at once and written in place,
// never through a temporary file; a symlink is followed; a device or a
// FIFO is opened at once (a FIFO waits for its reader there); "-" or ""
// is standard output; a directory is refused.
type Stream struct {
	path string
	w    io.Writer
	f    *os.File // a file opened here, which Close closes
}

// CreateStreamTo opens path for a stream, stdout being what "" and "-"
// name (a command run in-process writes to its caller's writer); an
// unusable path fails here, before anything is measured.
func CreateStreamTo(path string, stdout io.Writer) (*Stream, error) {
	if path == "" || path == "-" {
		return &Stream{path: "-", w: stdout}, nil
	}
	dest, fi, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if fi != nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory: want a file, a device, a FIFO or - (standard output)", path)
	}
	if fi != nil && same(fi, os.Stdout) {
		return &Stream{path: path, w: os.Stdout}, nil
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrap(err))
	}
	return &Stream{path: path, w: f, f: f}, nil
}

// Path is the path the stream was created with ("-": standard output).
func (s *Stream) Path() string { return s.path }

// Write writes p at once.
func (s *Stream) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", s.path, unwrap(err))
	}
	return n, err
}

// Close closes a file the stream opened. Safe to call more than once.
func (s *Stream) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.path, unwrap(err))
	}
	return nil
}
