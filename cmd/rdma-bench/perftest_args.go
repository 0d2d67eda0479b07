package main

import (
	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/perftestflags"
)

// perftestArgs rewrites perftest's spellings in args as rdma-bench's
// (perftestflags.Args); a flag rdma-bench does not have is bad input.
func perftestArgs(fs *pflag.FlagSet, args []string) (out, notes []string, err error) {
	out, notes, err = perftestflags.Args(fs, args)
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	return out, notes, nil
}

// isBenchFlagSet tells whether fs has the flags of addBenchFlags (its
// device flag marks them).
func isBenchFlagSet(fs *pflag.FlagSet) bool { return fs.Lookup("ib-dev") != nil }
