//go:build !cgo

package main

// The offline build (CGO_ENABLED=0, make offline): compare, plot, report,
// version and softroce, in a static binary that needs no rdma-core. The
// commands that measure are cut off at the command, where they start:
// their files build only with cgo, and here each one refuses to run.

import (
	"context"
	"io"
)

// offlineError is what a measuring command of the offline build returns:
// bad input (exit 2), as for a missing device, since nothing ran.
func offlineError(name string) error {
	return usageError("built without rdma-core (CGO_ENABLED=0): %s needs the cgo build (make build), as RDMA and the TCP baseline's loops are C; this build runs compare, history, plot, report, softroce and version", name)
}

// buildNote marks the version line of the offline build.
const buildNote = "[offline build: no RDMA (CGO_ENABLED=0)]"

func init() {
	for _, name := range []string{"devices", "fabric", "gate", "run", "server", "suite", "worker"} {
		register(name, "not in this build: needs the cgo build with rdma-core", func(context.Context, []string, io.Writer, io.Writer) error {
			return offlineError(name)
		})
	}
}

// applySlowdown has nothing to apply: the offline build measures nothing.
func applySlowdown() error { return nil }
