package outfile

import (
	"fmt"
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
	f    *os.File
	own  bool // f was opened here: Close closes it
}

// CreateStream opens path for a stream; an unusable path fails here,
// before anything is measured.
func CreateStream(path string) (*Stream, error) {
	if path == "" || path == "-" {
		return &Stream{path: "-", f: os.Stdout}, nil
	}
	dest, fi, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if fi != nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory: want a file, a device, a FIFO or - (standard output)", path)
	}
	if fi != nil && same(fi, os.Stdout) {
		return &Stream{path: path, f: os.Stdout}, nil
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrap(err))
	}
	return &Stream{path: path, f: f, own: true}, nil
}

// Path is the path the stream was created with ("-": standard output).
func (s *Stream) Path() string { return s.path }

// Write writes p at once.
func (s *Stream) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", s.path, unwrap(err))
	}
	return n, err
}

// Close closes a file the stream opened. Safe to call more than once.
func (s *Stream) Close() error {
	if !s.own || s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.path, unwrap(err))
	}
	return nil
}
