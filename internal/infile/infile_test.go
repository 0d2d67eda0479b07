package infile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// cancelAfter returns a context cancelled, with a cause, after d.
func cancelAfter(t *testing.T, d time.Duration) (context.Context, error) {
	t.Helper()
	cause := errors.New("terminated received")
	ctx, cancel := context.WithCancelCause(context.Background())
	timer := time.AfterFunc(d, func() { cancel(cause) })
	t.Cleanup(func() { timer.Stop(); cancel(nil) })
	return ctx, cause
}

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// TestReadStopsOnContext: a FIFO nobody opens for writing, or whose
// writer sends nothing, holds Read until ctx ends; it then returns at
// once with ctx's cause.
func TestReadStopsOnContext(t *testing.T) {
	t.Run("no writer", func(t *testing.T) {
		p := fifo(t)
		ctx, cause := cancelAfter(t, 200*time.Millisecond)
		start := time.Now()
		_, err := Read(ctx, p)
		if !errors.Is(err, cause) || time.Since(start) > 2*time.Second {
			t.Fatalf("Read = %v after %v, want the cause within 2 s", err, time.Since(start))
		}
	})
	t.Run("silent writer", func(t *testing.T) {
		p := fifo(t)
		done := make(chan *os.File, 1)
		go func() {
			w, err := os.OpenFile(p, os.O_WRONLY, 0) // waits for the reader
			if err != nil {
				t.Error(err)
			}
			done <- w
		}()
		ctx, cause := cancelAfter(t, 300*time.Millisecond)
		start := time.Now()
		_, err := Read(ctx, p)
		if w := <-done; w != nil {
			w.Close()
		}
		if !errors.Is(err, cause) || time.Since(start) > 2*time.Second {
			t.Fatalf("Read = %v after %v, want the cause within 2 s", err, time.Since(start))
		}
	})
	t.Run("writer", func(t *testing.T) {
		p := fifo(t)
		go func() {
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			w.Write([]byte(`{"a": 1}`))
			w.Close()
		}()
		b, err := Read(context.Background(), p)
		if err != nil || string(b) != `{"a": 1}` {
			t.Fatalf("Read = %q, %v", b, err)
		}
	})
	t.Run("regular file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "doc.json")
		os.WriteFile(p, []byte("{}"), 0o600)
		b, err := Read(context.Background(), p)
		if err != nil || string(b) != "{}" {
			t.Fatalf("Read = %q, %v", b, err)
		}
	})
}
