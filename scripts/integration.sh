#!/usr/bin/env bash
# Runs the tests that need an RDMA device on soft-RoCE: directly when this
# host has an RDMA device, otherwise inside the QEMU VM of vm/run.sh.
#
# The test binaries of every package whose tests use internal/testenv are
# built here on the host, then run (with RDMA_BENCH_REQUIRE_DEVICE=1, so a
# missing device fails instead of skipping) from their package directory.
# The last line is "integration: N passed, N failed, N skipped".
set -euo pipefail

root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
out=.build/itest
rm -rf "$out"
mkdir -p "$out"

# Packages whose tests import internal/testenv.
mapfile -t pkgs < <(go list -f '{{.ImportPath}} {{.Dir}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... |
	awk '{ for (i = 3; i <= NF; i++) if ($i ~ /internal\/testenv$/) { print $1 " " $2; next } }')
runner="$out/run.sh"
{
	echo '#!/usr/bin/env bash'
	echo 'set -u; rc=0'
	for p in "${pkgs[@]}"; do
		read -r ip dir <<<"$p"
		name=$(echo "${ip#github.com/rdma-bench/rdma-bench/}" | tr / _)
		go test -c -o "$out/$name.test" "$ip"
		echo "echo '=== package $ip'"
		echo "(cd '$dir' && '$root/$out/$name.test' -test.v -test.timeout 55m \"\$@\") || rc=1"
	done
	echo 'exit $rc'
} >"$runner"
chmod +x "$runner"
make -s BIN=.build/rdma-bench build
export RDMA_BENCH_BIN="$root/.build/rdma-bench"
# The calibrated slowdown build (-tags rdmabench_slowdown): the slowdown
# gate below, and TestLostCompletion (it can lose a completion on request).
slow="$root/.build/rdma-bench-slowdown"
go build -tags rdmabench_slowdown -o "$slow" ./cmd/rdma-bench
export RDMA_BENCH_SLOW_BIN="$slow"

log="$out/log"
status=0
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	echo "integration: using this host's RDMA devices: $(ls /sys/class/infiniband | tr '\n' ' ')"
	RDMA_BENCH_REQUIRE_DEVICE=1 "$runner" "$@" 2>&1 | tee "$log" || status=$?
else
	echo "integration: no RDMA device on this host: running on soft-RoCE in a QEMU VM (vm/run.sh)"
	# rxe0 on a dummy netdev: rdma_cm cannot route over loopback.
	export RDMA_BENCH_VM_NETDEV=${RDMA_BENCH_VM_NETDEV:-dummy0}
	# The device tests take about 35 minutes under the emulator (2026-11-28;
	# the gates of the README and of make gate spend their budgets): 60 leave room.
	vm/run.sh --timeout "${RDMA_BENCH_VM_TIMEOUT:-3600}" -- "$runner" "$@" 2>&1 | tee "$log" || status=$?
fi
# The main job itself, as a user runs it (in the VM where the host has no
# RDMA), at one size with short points.
{
	echo "=== RUN   make bench"
	res="$out/bench-results"
	if make -s bench ARGS="--sizes 64 -D 0.2 --results-dir $res" >"$out/bench.log" 2>&1 &&
		grep -q "BW ratio" "$out/bench.log" && ls "$res"/rdma-bench-*-suite.json >/dev/null 2>&1 &&
		[ "$(grep -c '^saved ' "$out/bench.log")" -eq 1 ] && grep -Eq "^saved $res/rdma-bench-[^/]*-suite\.json$" "$out/bench.log" &&
		grep -q "\"$res\"" "$res"/rdma-bench-*-suite.json && ! grep -q '\.build/bench\.' "$res"/rdma-bench-*-suite.json; then
		echo "--- PASS: make bench (the comparison printed, $(ls "$res") saved, only the final path printed, its args naming it)"
	else
		cat "$out/bench.log"
		echo "--- FAIL: make bench (want the comparison, the document in $res and one \"saved\" line, with its final path, its args naming $res)"
	fi
} 2>&1 | tee -a "$log"
# The main job's HTML report: beside the saved document, its path the last
# line make bench printed.
{
	echo "=== RUN   make bench report"
	res="$out/bench-results" # as above: that block ran in a subshell
	html=$(tail -n 1 "$out/bench.log")
	if [[ $html == "$res"/rdma-bench-*-suite.html && -s $html && -e ${html%.html}.json ]] && grep -q "<svg" "$html"; then
		echo "--- PASS: make bench report ($html)"
	else
		echo "--- FAIL: make bench report (the last line is \"$html\", want the report beside the document in $res)"
	fi
} 2>&1 | tee -a "$log"
# The gate, as a user runs it (make gate): an A/A gate (the same binary on
# both sides, each in its worker) must not fail (exit 1 would be a false
# alarm): it passes (exit 0) or, on a day the emulator's bandwidth pairs
# spread by ±40% (134 of 136 runs retransmitting, 2026-11-28), ends
# undecided (exit 3) within its 3-minute budget. This checks behaviour,
# not power (docs/gate.md has the figures; pkg/gate's TestGateAA checks
# that an A/A gate passes): thresholds of 25%, with a 0.01% false-alarm
# budget, so that the check fails on a broken gate, not one run in a
# hundred. The gate's own status is read from its last line, since make
# turns any failure into its own exit 2.
{
	echo "=== RUN   make gate"
	res="$out/gate-aa"
	rc=0
	make -s gate ARGS="write_lat:64 write_bw:4K --fail-on 'lat.p50>+25%,bw<-25%' --alpha 0.0001 --budget 3m --save-dir $res" >"$out/gate.log" 2>&1 || rc=$?
	line=$(grep -E "^gate (pass|fail|undecided|partial) \(exit [0-9]+\)" "$out/gate.log" | tail -n 1 || true)
	if [[ $line == "gate pass (exit 0)"* || $line == "gate undecided (exit 3)"* ]] && grep -Eq "^\| write_lat 64 B +\| lat.p50" "$out/gate.log" &&
		grep -q "| pair spread (p10, p90) |" "$out/gate.log" && grep -q '"runs_as": "worker"' "$res"/gate-*.json; then
		echo "--- PASS: make gate ($line)"
	else
		cat "$out/gate.log"
		echo "--- FAIL: make gate (make exit $rc, \"$line\"; want an A/A gate to pass or end undecided in workers, its table, its spread and its document in $res)"
	fi
} 2>&1 | tee -a "$log"
# A gate against the calibrated slowdown build (-tags rdmabench_slowdown)
# spinning 20 us per post: write_lat's median at least doubles (+100% and
# more), so the gate must fail, exit 1, and name the point.
{
	echo "=== RUN   gate slowdown"
	rc=0
	scripts/gate.sh write_lat:64 --candidate-bin "$slow" --candidate-env RDMA_BENCH_SLOWDOWN_NS=20000 \
		--save-dir "$out/gate-slow" >"$out/gate-slow.log" 2>&1 || rc=$?
	line=$(tail -n 1 "$out/gate-slow.log")
	if [ "$rc" -eq 1 ] && [[ $line == "gate fail (exit 1): write_lat 64 B lat.p50 +"* ]]; then
		echo "--- PASS: gate slowdown ($line)"
	else
		cat "$out/gate-slow.log"
		echo "--- FAIL: gate slowdown (exit $rc, \"$line\"; want exit 1 and write_lat 64 B named)"
	fi
} 2>&1 | tee -a "$log"
# The hosted-runner rehearsal (docs/ci.md): the VM booted without rdma_rxe
# (RDMA_BENCH_VM_RXE=none), the module built by scripts/ci/rxe-module.sh for
# the VM's exact kernel from Debian's source and headers (on the host, into
# .build/rxe-cache: from scratch once per clone), then installed, loaded and
# gated on inside the VM by scripts/ci/rehearse-runner.sh.
{
	echo "=== RUN   runner rehearsal"
	if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
		echo "--- SKIP: runner rehearsal (this host has RDMA devices; the rehearsal boots the VM without rdma_rxe)"
	else
		rc=0
		vmk=$(vm/run.sh --prepare 2>/dev/null | sed -n 's/^vm\/run.sh: ready: kernel \([^,]*\), .*/\1/p')
		t0=$(date +%s)
		scripts/ci/rxe-module.sh --kernel "${vmk:-unknown}" --cache "$root/.build/rxe-cache" >"$out/rxe-module.log" 2>&1 || rc=$?
		t1=$(date +%s)
		# rdma-core in place from Debian's source package: trixie's 56.1,
		# as this machine's mirror has no upstream tarball of bookworm's 44.0.
		lib=''
		if [ "$rc" -eq 0 ]; then
			lib=$(scripts/ci/rdma-core.sh --version 56.1-1 --suite trixie --cache "$root/.build/rdma-core" 2>>"$out/rxe-module.log") || rc=$?
		fi
		t2=$(date +%s)
		if [ "$rc" -eq 0 ]; then
			RDMA_BENCH_VM_NETDEV=dummy0 RDMA_BENCH_VM_RXE=none vm/run.sh --timeout 900 -- \
				scripts/ci/rehearse-runner.sh "$root/.build/rxe-cache" "$lib" >"$out/rehearsal.log" 2>&1 || rc=$?
		fi
		cat "$out/rxe-module.log" "$out/rehearsal.log" 2>/dev/null | grep -E '^(rxe-module|rdma-core|rehearsal):'
		if [ "$rc" -eq 0 ] && ! grep -q '^rehearsal: FAIL' "$out/rehearsal.log"; then
			echo "--- PASS: runner rehearsal (rdma_rxe built for $vmk in $((t1 - t0)) s, rdma-core in place in $((t2 - t1)) s; loaded, gated on)"
		else
			cat "$out/rxe-module.log" "$out/rehearsal.log" 2>/dev/null | tail -n 40
			echo "--- FAIL: runner rehearsal (exit $rc)"
		fi
	fi
} 2>&1 | tee -a "$log"
passed=$(grep -c '^--- PASS' "$log" || true)
failed=$(grep -c '^--- FAIL' "$log" || true)
skipped=$(grep -c '^--- SKIP' "$log" || true)
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
	echo "integration: the run failed outside any test (exit $status)"
fi
# What a failure said, in brief, next to the last line (CI shows a log's
# end): the lines before each failing test's or subtest's FAIL line.
if [ "$failed" -gt 0 ]; then
	echo "integration: the failures, in brief (the whole log: $log)"
	grep -B 6 -E '^[[:space:]]*--- FAIL' "$log" | cut -c 1-300 | tail -n 120
fi
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
