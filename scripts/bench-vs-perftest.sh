#!/usr/bin/env bash
# rdma-bench against perftest on soft-RoCE: `make bench-vs-perftest`.
#
# Installs perftest when missing, then runs scripts/bench-vs-perftest-guest.sh
# (which runs both tools and prints the comparison table) directly when this
# host has an RDMA device, otherwise inside the QEMU soft-RoCE VM of vm/run.sh.
# Uses ./rdma-bench (from `make build`), else .build/rdma-bench, built when
# missing; RDMA_BENCH_BIN overrides. The settings the guest script reads
# (REPS, LAT_ITERS, BW_ITERS, CASES, PORT_BASE, PIN_SERVER, PIN_CLIENT,
# RB_EXTRA, PT_EXTRA, RDMA_DEV, GID_INDEX, HOST, CSV) are passed through.
# Raw per-run numbers go to results/bench-vs-perftest-<timestamp>.csv.
# Exits non-zero only when a tool fails to run; a MISS row is informational.
set -euo pipefail

root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"

if ! command -v ib_write_lat >/dev/null; then
	echo "bench-vs-perftest: installing perftest"
	sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q perftest >/dev/null ||
		{ "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q perftest >/dev/null; }
fi

if [ -z "${RDMA_BENCH_BIN:-}" ]; then
	if [ -x ./rdma-bench ]; then
		RDMA_BENCH_BIN=$root/rdma-bench
	else
		RDMA_BENCH_BIN=$root/.build/rdma-bench
		[ -x "$RDMA_BENCH_BIN" ] || go build -o "$RDMA_BENCH_BIN" ./cmd/rdma-bench
	fi
fi
export RDMA_BENCH_BIN

stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p results
vars=(RDMA_BENCH_BIN="$RDMA_BENCH_BIN" CSV="${CSV:-$root/results/bench-vs-perftest-$stamp.csv}")
for v in REPS LAT_ITERS BW_ITERS CASES PORT_BASE PIN_SERVER PIN_CLIENT RB_EXTRA PT_EXTRA RDMA_DEV GID_INDEX HOST; do
	[ -z "${!v:-}" ] || vars+=("$v=${!v}")
done

start=$(date +%s)
status=0
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] || [ "${RDMA_BENCH_IN_VM:-}" = 1 ]; then
	echo "bench-vs-perftest: using this host's RDMA devices: $(echo /sys/class/infiniband/* | sed 's#/sys/class/infiniband/##g')"
	env "${vars[@]}" scripts/bench-vs-perftest-guest.sh || status=$?
else
	echo "bench-vs-perftest: no RDMA device on this host: running on soft-RoCE in a QEMU VM (vm/run.sh; TCG-emulated, so absolute numbers are low and noisy)"
	vm/run.sh --timeout "${RDMA_BENCH_VM_TIMEOUT:-1200}" -- env "${vars[@]}" scripts/bench-vs-perftest-guest.sh || status=$?
fi
echo "bench-vs-perftest: total $(($(date +%s) - start))s (exit $status)"
exit "$status"
