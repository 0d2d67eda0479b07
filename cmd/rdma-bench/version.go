package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// version and commit are set at build time (the Makefile does):
// -ldflags "-X main.version=... -X main.commit=...".
var version, commit string

func init() {
	register("version", "print the version and the commit it was built from", runVersion)
}

// versionInfo is what a binary knows of where it came from.
type versionInfo struct {
	version string // a release tag, a git describe, or "devel"
	commit  string // the VCS revision, "-dirty" when modified; "" unknown
	// note marks a build that is not the plain measuring one: the gate's
	// calibrated slowdown, or the offline build (offline.go).
	note string
}

// buildVersion is the version given at build time, else the module's
// build information: the module version (go install module@version) and
// the VCS revision that go build records.
func buildVersion() versionInfo {
	v := versionInfo{version: version, commit: commit, note: buildNote}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if v.version == "" {
			v.version = "devel"
		}
		return v
	}
	if v.version == "" {
		v.version = info.Main.Version
		if v.version == "" || v.version == "(devel)" {
			v.version = "devel"
		}
	}
	if v.commit != "" {
		return v
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && v.commit != "" {
		v.commit += "-dirty"
	}
	return v
}

func (v versionInfo) String() string {
	commit := v.commit
	if commit == "" {
		commit = "unknown: built without VCS information (build with make, or go build -buildvcs=true)"
	}
	s := fmt.Sprintf("rdma-bench %s (commit %s)", v.version, commit)
	if v.note != "" {
		s += " " + v.note
	}
	return s
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	fmt.Println(buildVersion())
	return nil
}
