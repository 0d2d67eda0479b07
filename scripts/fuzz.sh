#!/usr/bin/env bash
# Runs every Go fuzz target of the repository (each `func FuzzXxx(f
# *testing.F)` in a _test.go file under cmd, pkg and internal, found anew
# on every call, so new targets are included) for FUZZTIME each, one after
# the other, and fails if any fails. A failing input is saved by go test
# under the package's testdata/fuzz/FuzzXxx/, where the plain `go test`
# of make unit replays it from then on.
#
# usage: scripts/fuzz.sh [--list]
#   FUZZTIME            time per target (default 10s), as go test -fuzztime
#   FUZZMINIMIZETIME    time to minimise each new input (default 5s; go
#                       test's 60s would spend a short run on one input)
#   FUZZPARALLEL        fuzzing processes per target (default: go test's,
#                       GOMAXPROCS)
#   GO                  the go command (default go)
#
# make fuzz calls it; so can an integration step (make test does not, for
# the time it takes).
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
go=${GO:-go}
fuzztime=${FUZZTIME:-10s}
minimize=${FUZZMINIMIZETIME:-5s}
parallel=()
[ -z "${FUZZPARALLEL:-}" ] || parallel=(-parallel "$FUZZPARALLEL")

# targets prints "DIR NAME" for every fuzz target.
targets() {
	grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\([A-Za-z0-9_]+ \*testing\.F\)' cmd pkg internal |
		sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort -u
}

if [ "${1:-}" = --list ]; then
	targets
	exit 0
fi
[ $# -eq 0 ] || {
	echo "usage: scripts/fuzz.sh [--list]" >&2
	exit 2
}

list=$(targets)
[ -n "$list" ] || {
	echo "fuzz: no fuzz targets found under cmd, pkg, internal" >&2
	exit 1
}
failed=()
while read -r dir name; do
	echo "== $name ./$dir ($fuzztime)"
	if ! "$go" test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" \
		-fuzzminimizetime "$minimize" "${parallel[@]}" "./$dir"; then
		failed+=("$name ./$dir")
	fi
done <<<"$list"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'fuzz: failed: %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz: $(wc -l <<<"$list") targets passed, $fuzztime each"
