#!/usr/bin/env bash
# scripts/diag/tick-mode.sh: counts the latency runs of a suite whose median
# sits at the scheduler's tick (4 ms at CONFIG_HZ=250), with a third busy
# thread beside the suite (TICK_HOG=1, the default) or without (0). Run it
# inside the VM, where the machine has two CPUs:
#   vm/run.sh -- scripts/diag/tick-mode.sh [BINARY] [SUITE FLAGS]
# TICK_SAMPLE=1 also samples which thread runs on which CPU (ps itself then
# takes most of a CPU). docs/investigations/2026-11-29-tick-mode.md has what
# it found.
set -euo pipefail
bin=${1:-./rdma-bench}
shift || true
out=${TICK_OUT:-.build/tick-mode}
mkdir -p "$out"
hog=
if [ "${TICK_HOG:-1}" = 1 ]; then
	(while :; do :; done) &
	hog=$!
fi
"$bin" suite --loopback --sizes 64,4K -D 0.2 --repeat 3 -o json "$@" >"$out/suite.json" 2>"$out/suite.log" &
pid=$!
: >"$out/threads.log"
while [ "${TICK_SAMPLE:-0}" = 1 ] && kill -0 "$pid" 2>/dev/null; do
	{
		echo "t=$(date +%s.%N)"
		ps -eLo pid,tid,psr,pcpu,stat,comm --sort=-pcpu | awk 'NR == 1 || $4 > 5'
	} >>"$out/threads.log"
	sleep 0.2
done
wait "$pid" || echo "suite exit $?"
[ -z "$hog" ] || kill "$hog"
jq -r '.results[] | select(.kind == "latency") | .workload as $w | .size_bytes as $s | .runs[] |
	"\($w) \($s) run \(.run) p50 \(.latency_us.p50) us"' "$out/suite.json" |
	awk '{ n++; if ($6 >= 3600 && $6 <= 16400) { t++; print "AT TICK: " $0 } else print }
		END { printf "%d of %d latency runs at the tick\n", t, n }'
