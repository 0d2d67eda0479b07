//go:build cgo

package main

import (
	"errors"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// deviceError explains a device that cannot be opened: with none at all,
// how to get one; a device, port or GID index that does not exist is bad
// input.
func deviceError(err error) error {
	switch {
	case errors.Is(err, verbs.ErrNoDevice):
		return errors.New(noDeviceHelp)
	case errors.Is(err, verbs.ErrNoSuchDevice), errors.Is(err, verbs.ErrNoSuchPort), errors.Is(err, verbs.ErrNoSuchGID):
		return usageError("%v", err)
	}
	return err
}

// newDocument starts the report of an invocation, cmdline its command
// line (os.Args).
func newDocument(cmdline []string) *report.Document {
	v := buildVersion()
	return bench.NewDocument(report.Tool{Name: "rdma-bench", Version: strings.TrimSpace(v.version + " " + v.note), Commit: v.commit}, cmdline)
}
