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
		echo "(cd '$dir' && '$root/$out/$name.test' -test.v -test.timeout 20m \"\$@\") || rc=1"
	done
	echo 'exit $rc'
} >"$runner"
chmod +x "$runner"
make -s BIN=.build/rdma-bench build
export RDMA_BENCH_BIN="$root/.build/rdma-bench"

log="$out/log"
status=0
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	echo "integration: using this host's RDMA devices: $(ls /sys/class/infiniband | tr '\n' ' ')"
	RDMA_BENCH_REQUIRE_DEVICE=1 "$runner" "$@" 2>&1 | tee "$log" || status=$?
else
	echo "integration: no RDMA device on this host: running on soft-RoCE in a QEMU VM (vm/run.sh)"
	# rxe0 on a dummy netdev: rdma_cm cannot route over loopback.
	export RDMA_BENCH_VM_NETDEV=${RDMA_BENCH_VM_NETDEV:-dummy0}
	vm/run.sh -- "$runner" "$@" 2>&1 | tee "$log" || status=$?
fi
# The main job itself, as a user runs it (in the VM where the host has no
# RDMA), at one size with short points.
{
	echo "=== RUN   make bench"
	res="$out/bench-results"
	if make -s bench ARGS="--sizes 64 -D 0.2 --results-dir $res" >"$out/bench.log" 2>&1 &&
		grep -q "BW ratio" "$out/bench.log" && ls "$res"/rdma-bench-*-suite.json >/dev/null 2>&1; then
		echo "--- PASS: make bench (the comparison printed, $(ls "$res") saved)"
	else
		cat "$out/bench.log"
		echo "--- FAIL: make bench"
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
# The gate, as a user runs it (make gate): an A/A gate at one size, four
# rounds (the fewest with which the Mann-Whitney test can reach p < 0.05).
# Same binary on both sides: a regression (exit 1) would be a false alarm.
# make itself exits 2 whenever its recipe fails: the gate's own status is
# the one its last line names (scripts/gate.sh returns it).
{
	echo "=== RUN   make gate"
	res="$out/gate-results"
	rc=0
	RDMA_BENCH_GATE_SIZES=64 RDMA_BENCH_GATE_ROUNDS=4 RDMA_BENCH_GATE_RESULTS="$res" \
		make -s gate >"$out/gate.log" 2>&1 || rc=$?
	n=$(ls "$res"/rdma-bench-*.json 2>/dev/null | wc -l)
	line=$(grep -E "^gate (pass|fail|inconclusive) \(exit [0-9]\)" "$out/gate.log" | tail -n 1 || true)
	gstatus=$(echo "$line" | sed -n 's/.*(exit \([0-9]\)).*/\1/p')
	if { [ "$gstatus" = 0 ] && [ "$rc" -eq 0 ]; } || { [ "$gstatus" = 3 ] && [ "$rc" -eq 2 ]; }; then
		ok=1
	else
		ok=0
	fi
	if [ "$ok" -eq 1 ] && [ "$n" -eq 8 ] && grep -Eq "^\| write_lat RC poll 64 B +\| lat.p50" "$out/gate.log"; then
		echo "--- PASS: make gate ($line)"
	else
		cat "$out/gate.log"
		echo "--- FAIL: make gate (make exit $rc, gate \"$line\", $n documents; want the gate to pass or be inconclusive, 8 documents and the table)"
	fi
} 2>&1 | tee -a "$log"
passed=$(grep -c '^--- PASS' "$log" || true)
failed=$(grep -c '^--- FAIL' "$log" || true)
skipped=$(grep -c '^--- SKIP' "$log" || true)
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
	echo "integration: the run failed outside any test (exit $status)"
fi
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
