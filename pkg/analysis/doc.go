// Package analysis holds the pipelines of rdma-bench's offline commands,
// which read saved documents and measure nothing: compare's comparison
// (both sides loaded, matched, compared and rendered), plot's charts and
// report's HTML composition. It is pure Go, so that the offline build
// (CGO_ENABLED=0) has all of it.
//
// Errors caused by what the user named (a path, a label, a threshold)
// are marked as package inputerr does, so that a command can tell them
// from failures; their messages are the commands' own.
package analysis

import (
	"context"
	"fmt"
	"io"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// LoadDocs loads the run documents that paths name, writing to notes a
// line for each document of another kind (a fabric sweep's) that a
// directory or a pattern held and that was left out. It stops when ctx
// ends, with ctx's cause.
func LoadDocs(ctx context.Context, notes io.Writer, paths ...string) ([]*document.Document, error) {
	return results.LoadNoting(ctx, func(s string) { fmt.Fprintln(notes, "note: "+s) }, paths...)
}

// badInput builds an error about the input.
func badInput(format string, a ...any) error { return inputerr.New(format, a...) }

// loadError is the error of a load: ctx's cause when ctx ended, else
// bad input, which what could not be read is.
func loadError(ctx context.Context, prefix string, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if prefix != "" {
		return badInput("%s: %v", prefix, err)
	}
	return badInput("%v", err)
}
