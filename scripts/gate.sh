#!/usr/bin/env bash
# scripts/gate.sh (make gate): a performance gate. Measures a baseline and a
# candidate with the suite on soft-RoCE, in rounds that alternate the two
# sides, then compares them and exits with the comparison's status:
#
#   rdma-bench suite --loopback --repeat R --save --label base      --results-dir DIR   (round 1)
#   rdma-bench suite --loopback --repeat R --save --label candidate --results-dir DIR   (round 1)
#   rdma-bench suite ... --label candidate ..., then --label base ...                   (round 2)
#   ...
#   rdma-bench compare --base-label base --label candidate DIR
#
# on this host's RDMA device, or inside the QEMU VM (vm/run.sh) when the host
# has none (/sys/class/infiniband empty). All measurements run in one VM; the
# comparison runs on the host. The rounds alternate which side goes first
# (base first in odd rounds), so that a slow phase of the machine, which on
# the emulated VM lasts tens of seconds, lands on both sides instead of
# reading as a regression (docs/gate.md has the measurements behind this).
#
# usage: scripts/gate.sh               measure (in the VM where needed), then compare
#        scripts/gate.sh --measure DIR measure into DIR here (what runs in the VM)
#        scripts/gate.sh --compare DIR compare what DIR holds, with the gate's thresholds
#
# Exit status: compare's: 0 pass, 1 regression, 3 inconclusive (1 with
# --strict in RDMA_BENCH_GATE_COMPARE_FLAGS), 2 bad input; 4 when a
# measurement failed (nothing compared).
#
# Environment (RDMA_BENCH_* names, so vm/run.sh passes them into the VM):
#   RDMA_BENCH_GATE_SIZES            message sizes (default 64,4K)
#   RDMA_BENCH_GATE_ROUNDS           rounds (default 5): each side's runs per point are
#                                    ROUNDS x REPEAT
#   RDMA_BENCH_GATE_REPEAT           --repeat of every suite, per side and round (default 1)
#   RDMA_BENCH_GATE_DURATION         seconds per run, -D (default 0.2)
#   RDMA_BENCH_GATE_WARMUP           1 (default): one short unsaved suite first, so that the
#                                    first side measured does not pay for a cold machine
#   RDMA_BENCH_GATE_TARGET           where the suite runs (default --loopback; "HOST -d DEV"
#                                    against a server started beforehand)
#   RDMA_BENCH_GATE_BASE_FLAGS       extra suite flags for the baseline
#   RDMA_BENCH_GATE_CANDIDATE_FLAGS  extra suite flags for the candidate, e.g. to
#                                    inject a slowdown: "-t 8" (a shallow send queue;
#                                    tx_depth is a measured parameter, so add
#                                    --ignore-param tx_depth to the compare flags)
#   RDMA_BENCH_GATE_CANDIDATE_LOAD   busy-looping processes to run beside the
#                                    candidate (default 0): a slowdown that changes
#                                    no parameter
#   RDMA_BENCH_GATE_CANDIDATE_BEFORE, RDMA_BENCH_GATE_CANDIDATE_AFTER
#                                    shell commands run before and after every candidate
#                                    measurement (e.g. adding and removing a netem qdisc)
#   RDMA_BENCH_GATE_BASE_BIN         the baseline's rdma-bench (default: the candidate's),
#                                    to gate a new build against an old one
#   RDMA_BENCH_GATE_BIN              the candidate's rdma-bench (default ./rdma-bench,
#                                    built when missing); it also runs the comparison
#   RDMA_BENCH_GATE_FAIL_ON          compare's --fail-on (default: compare's own on a host
#                                    with RDMA; lat.p50>+30%,bw<-30% when measuring in the
#                                    VM, chosen from A/A runs there: docs/gate.md)
#   RDMA_BENCH_GATE_COMPARE_FLAGS    extra compare flags (e.g. "-o markdown --strict")
#   RDMA_BENCH_GATE_RESULTS          results directory (default results/gate-DATE-TIME;
#                                    inside the work tree, which the VM shares). It must
#                                    hold no document yet: old runs would pool in.
set -euo pipefail

root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"

sizes=${RDMA_BENCH_GATE_SIZES:-64,4K}
repeat=${RDMA_BENCH_GATE_REPEAT:-1}
rounds=${RDMA_BENCH_GATE_ROUNDS:-5}
duration=${RDMA_BENCH_GATE_DURATION:-0.2}
warmup=${RDMA_BENCH_GATE_WARMUP:-1}
load=${RDMA_BENCH_GATE_CANDIDATE_LOAD:-0}
bin=${RDMA_BENCH_GATE_BIN:-./rdma-bench}
base_bin=${RDMA_BENCH_GATE_BASE_BIN:-$bin}
read -r -a target <<<"${RDMA_BENCH_GATE_TARGET:---loopback}"
read -r -a base_flags <<<"${RDMA_BENCH_GATE_BASE_FLAGS:-}"
read -r -a cand_flags <<<"${RDMA_BENCH_GATE_CANDIDATE_FLAGS:-}"
read -r -a compare_flags <<<"${RDMA_BENCH_GATE_COMPARE_FLAGS:-}"
# The thresholds when measuring in the emulated VM: chosen from A/A
# measurements there (docs/gate.md), where compare's defaults (made for
# real hardware and hosted runners) fail by chance about one gate in nine.
vm_fail_on='lat.p50>+30%,bw<-30%'
in_vm=0

for v in repeat rounds load warmup; do
	min=1
	[ "$v" = load ] || [ "$v" = warmup ] && min=0
	if ! [[ ${!v} =~ ^[0-9]+$ ]] || [ "${!v}" -lt "$min" ]; then
		echo "gate: RDMA_BENCH_GATE_${v^^}=${!v}: want a whole number from $min" >&2
		exit 2
	fi
done

# docs DIR: how many documents DIR holds.
docs() {
	local f n=0
	for f in "$1"/*.json; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

# side DIR LABEL ROUND: one suite of one side, its progress in DIR/measure.log.
side() {
	local dir=$1 label=$2 round=$3 b=$base_bin flags=("${base_flags[@]}") pids=() rc=0 i
	echo "gate: round $round of $rounds: $label" >&2
	if [ "$label" = candidate ]; then
		b=$bin flags=("${cand_flags[@]}")
		if [ -n "${RDMA_BENCH_GATE_CANDIDATE_BEFORE:-}" ]; then
			bash -c "$RDMA_BENCH_GATE_CANDIDATE_BEFORE" || return 4
		fi
		for ((i = 0; i < load; i++)); do
			(while :; do :; done) &
			pids+=($!)
		done
	fi
	local before after
	before=$(docs "$dir")
	"$b" suite "${target[@]}" --repeat "$repeat" --save --label "$label" --results-dir "$dir" \
		--sizes "$sizes" -D "$duration" "${flags[@]}" >/dev/null 2>>"$dir/measure.log" || rc=$?
	after=$(docs "$dir")
	# Exit 1 with the document saved: a run had too little data or failed,
	# and the document says which; compare leaves such runs out, or refuses
	# a partial one (exit 2).
	if [ "$rc" -eq 1 ] && [ "$after" -gt "$before" ]; then
		echo "gate: round $round, $label: some runs have no figure (see $dir/measure.log); compared without them" >&2
		rc=0
	fi
	[ "$rc" -eq 0 ] || rc=4
	if [ ${#pids[@]} -gt 0 ]; then
		kill "${pids[@]}" 2>/dev/null || true
		wait "${pids[@]}" 2>/dev/null || true
	fi
	if [ "$label" = candidate ] && [ -n "${RDMA_BENCH_GATE_CANDIDATE_AFTER:-}" ]; then
		bash -c "$RDMA_BENCH_GATE_CANDIDATE_AFTER" || rc=4
	fi
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$dir/measure.log" >&2
	fi
	return "$rc"
}

# measure DIR: a warm-up, then every round both sides, base first in odd
# rounds and candidate first in even ones.
measure() {
	local dir=$1 round
	if [ "$warmup" -ge 1 ]; then
		echo "gate: warm-up (not saved)" >&2
		"$base_bin" suite "${target[@]}" --sizes "$sizes" -D 0.05 "${base_flags[@]}" >/dev/null 2>>"$dir/measure.log" ||
			echo "gate: the warm-up failed (see $dir/measure.log); measuring anyway" >&2
	fi
	for ((round = 1; round <= rounds; round++)); do
		if ((round % 2)); then
			side "$dir" base "$round" && side "$dir" candidate "$round" || return 4
		else
			side "$dir" candidate "$round" && side "$dir" base "$round" || return 4
		fi
	done
}

# compare DIR: the gate's comparison of the documents in DIR, on the host.
compare() {
	local fail_on=()
	if [ -n "${RDMA_BENCH_GATE_FAIL_ON:-}" ]; then
		fail_on=(--fail-on "$RDMA_BENCH_GATE_FAIL_ON")
	elif [ "$in_vm" -eq 1 ]; then
		fail_on=(--fail-on "$vm_fail_on")
	fi
	"$bin" compare --base-label base --label candidate "${fail_on[@]}" "${compare_flags[@]}" "$1"
}

case "${1:-}" in
--measure) # inside the VM: only measure (the host compares)
	mkdir -p "$2"
	measure "$2" || exit 4
	exit 0
	;;
--compare) # compare a directory measured before
	[ -x "$bin" ] || make -s build
	[ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] && [ "${RDMA_BENCH_IN_VM:-}" != 1 ] || in_vm=1
	compare "$2"
	exit
	;;
esac

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
start=$(date +%s)
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	[ "${RDMA_BENCH_IN_VM:-}" = 1 ] && in_vm=1 # vm/run.sh's guest: emulated too
	measure "$dir" || status=$?
else
	in_vm=1
	echo "gate: no RDMA device on this host: measuring on soft-RoCE in a QEMU VM (emulated: slow and noisy)" >&2
	vm/run.sh -- "$0" --measure "$dir" || status=$?
fi
if [ "$status" -ne 0 ]; then
	echo "gate: a measurement failed (exit $status): nothing compared; the documents so far are in $dir" >&2
	exit 4
fi
echo "gate: measured in $(($(date +%s) - start)) s; documents in $dir" >&2
compare "$dir"
