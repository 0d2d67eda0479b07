package inputerr

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestMarked(t *testing.T) {
	err := New("--fail-on: %w", io.EOF)
	if err.Error() != "--fail-on: EOF" || !Is(err) || !errors.Is(err, io.EOF) {
		t.Errorf("New: %q, Is %v, wraps EOF %v", err, Is(err), errors.Is(err, io.EOF))
	}
	if w := fmt.Errorf("outer: %w", err); !Is(w) {
		t.Error("a wrapped input error is not found")
	}
	if j := errors.Join(io.EOF, Wrap(io.ErrUnexpectedEOF)); !Is(j) {
		t.Error("a joined input error is not found")
	}
	if Is(io.EOF) || Is(nil) || Wrap(nil) != nil {
		t.Error("an error not marked is taken for bad input")
	}
}
