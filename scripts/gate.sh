#!/usr/bin/env bash
# scripts/gate.sh: a performance gate. Measures a baseline and a candidate
# with the suite on soft-RoCE, then compares them and exits with the
# comparison's status:
#
#   rdma-bench suite --loopback --repeat N --save --label base      --results-dir DIR
#   rdma-bench suite --loopback --repeat N --save --label candidate --results-dir DIR [extra flags]
#   rdma-bench compare --base-label base --label candidate DIR
#
# on this host's RDMA device, or inside the QEMU VM (vm/run.sh) when the host
# has none (/sys/class/infiniband empty). Both measurements run in one VM;
# the comparison runs on the host.
#
# Exit status: compare's: 0 pass, 1 regression, 3 inconclusive (1 with
# --strict in RDMA_BENCH_GATE_COMPARE_FLAGS), 2 bad input; 4 when a
# measurement failed (nothing compared).
#
# Environment (RDMA_BENCH_* names, so vm/run.sh passes them into the VM):
#   RDMA_BENCH_GATE_SIZES            message sizes (default 64,4K)
#   RDMA_BENCH_GATE_REPEAT           runs of every point per side and round (default 5)
#   RDMA_BENCH_GATE_ROUNDS           rounds, each baseline then candidate (default 1;
#                                    more interleave the sides against drift)
#   RDMA_BENCH_GATE_DURATION         seconds per run, -D (default 0.2)
#   RDMA_BENCH_GATE_BASE_FLAGS       extra suite flags for the baseline
#   RDMA_BENCH_GATE_CANDIDATE_FLAGS  extra suite flags for the candidate, e.g. to
#                                    inject a slowdown: "-t 8" (a shallow send queue;
#                                    tx_depth is a measured parameter, so add
#                                    --ignore-param tx_depth to the compare flags)
#   RDMA_BENCH_GATE_CANDIDATE_LOAD   busy-looping processes to run beside the
#                                    candidate (default 0): a slowdown that changes
#                                    no parameter
#   RDMA_BENCH_GATE_COMPARE_FLAGS    extra compare flags (e.g. "-o markdown --strict")
#   RDMA_BENCH_GATE_RESULTS          results directory (default results/gate-DATE-TIME;
#                                    inside the work tree, which the VM shares). It must
#                                    hold no document yet: old runs would pool in.
#   RDMA_BENCH_GATE_BIN              the rdma-bench binary (default ./rdma-bench, built
#                                    when missing)
set -euo pipefail

root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"

sizes=${RDMA_BENCH_GATE_SIZES:-64,4K}
repeat=${RDMA_BENCH_GATE_REPEAT:-5}
rounds=${RDMA_BENCH_GATE_ROUNDS:-1}
duration=${RDMA_BENCH_GATE_DURATION:-0.2}
load=${RDMA_BENCH_GATE_CANDIDATE_LOAD:-0}
bin=${RDMA_BENCH_GATE_BIN:-./rdma-bench}
read -r -a base_flags <<<"${RDMA_BENCH_GATE_BASE_FLAGS:-}"
read -r -a cand_flags <<<"${RDMA_BENCH_GATE_CANDIDATE_FLAGS:-}"
read -r -a compare_flags <<<"${RDMA_BENCH_GATE_COMPARE_FLAGS:-}"

for v in repeat rounds load; do
	min=1
	[ "$v" = load ] && min=0
	if ! [[ ${!v} =~ ^[0-9]+$ ]] || [ "${!v}" -lt "$min" ]; then
		echo "gate: RDMA_BENCH_GATE_${v^^}=${!v}: want a whole number from $min" >&2
		exit 2
	fi
done

# measure DIR: every round, the baseline then the candidate (with its load).
measure() {
	local dir=$1 round pids=()
	for ((round = 1; round <= rounds; round++)); do
		echo "gate: round $round of $rounds: baseline" >&2
		"$bin" suite --loopback --repeat "$repeat" --save --label base --results-dir "$dir" \
			--sizes "$sizes" -D "$duration" "${base_flags[@]}" >/dev/null || return 4
		echo "gate: round $round of $rounds: candidate, beside $load busy loops" >&2
		pids=()
		for ((i = 0; i < load; i++)); do
			(while :; do :; done) &
			pids+=($!)
		done
		local rc=0
		"$bin" suite --loopback --repeat "$repeat" --save --label candidate --results-dir "$dir" \
			--sizes "$sizes" -D "$duration" "${cand_flags[@]}" >/dev/null || rc=4
		if [ ${#pids[@]} -gt 0 ]; then
			kill "${pids[@]}" 2>/dev/null || true
			wait "${pids[@]}" 2>/dev/null || true
		fi
		[ "$rc" -eq 0 ] || return "$rc"
	done
}

# Inside the VM: only measure (the host compares).
if [ "${1:-}" = --measure ]; then
	measure "$2" || exit 4
	exit 0
fi

if [ "$bin" = ./rdma-bench ] && [ ! -x ./rdma-bench ]; then
	make -s build
fi
dir=${RDMA_BENCH_GATE_RESULTS:-results/gate-$(date +%Y%m%d-%H%M%S)}
if compgen -G "$dir/*.json" >/dev/null; then
	echo "gate: $dir already holds documents: their runs would pool with the new ones; name an empty directory" >&2
	exit 2
fi
mkdir -p "$dir"

status=0
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	measure "$dir" || status=$?
else
	echo "gate: no RDMA device on this host: measuring on soft-RoCE in a QEMU VM (emulated: slow and noisy)" >&2
	vm/run.sh -- "$0" --measure "$dir" || status=$?
fi
if [ "$status" -ne 0 ]; then
	echo "gate: a measurement failed (exit $status): nothing compared; the documents so far are in $dir" >&2
	exit 4
fi
echo "gate: documents in $dir" >&2
"$bin" compare --base-label base --label candidate "${compare_flags[@]}" "$dir"
