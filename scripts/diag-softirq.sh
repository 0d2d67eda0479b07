#!/usr/bin/env bash
# Where a latency iteration's time goes on soft-RoCE: for rdma-bench and the
# matching perftest tool, alternating, prints each run's p50 and mean and the
# CPU time the kernel's ksoftirqd threads spent per iteration (rxe runs the
# responder and completer of a READ there). Diagnostic, not a gate: it
# separates a gap in the kernel's share from a gap in the measuring loop.
#
# usage: scripts/diag-softirq.sh            (runs in the VM when the host has
#                                             no RDMA device)
# env:   REPS=4 N=30000 W=read_lat S=2 RDMA_DEV (default: first) GID_INDEX
#        (default 1 in the VM) HOST=127.0.0.1 RDMA_BENCH_BIN
# Needs /proc/PID/sched (CONFIG_SCHED_DEBUG, as in Debian's kernel). The
# per-iteration figure includes each run's set-up; with N=30000 that adds
# about 0.3 us for rdma-bench.
set -uo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root" || exit 1
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ] && [ "${RDMA_BENCH_IN_VM:-}" != 1 ]; then
	bin=${RDMA_BENCH_BIN:-$root/.build/rdma-bench}
	[ -n "${RDMA_BENCH_BIN:-}" ] || go build -o "$bin" ./cmd/rdma-bench || exit 1
	vars=(RDMA_BENCH_BIN="$bin")
	for v in REPS N W S RDMA_DEV GID_INDEX HOST; do [ -z "${!v:-}" ] || vars+=("$v=${!v}"); done
	exec vm/run.sh --timeout 1200 -- env "${vars[@]}" scripts/diag-softirq.sh
fi
REPS=${REPS:-4} N=${N:-30000} W=${W:-read_lat} S=${S:-2} HOST=${HOST:-127.0.0.1}
B=${RDMA_BENCH_BIN:-$root/.build/rdma-bench}
# shellcheck disable=SC2012 # device names are plain
dev=${RDMA_DEV:-$(ls /sys/class/infiniband | head -n 1)}
gid=${GID_INDEX:-}
[ -n "$gid" ] || [ "${RDMA_BENCH_IN_VM:-}" != 1 ] || gid=1
args=(-d "$dev")
[ -z "$gid" ] || args+=(-x "$gid")
ks=$(pgrep -x 'ksoftirqd/[0-9]*' | tr '\n' ' ')
if [ -z "$ks" ] || [ ! -r "/proc/${ks%% *}/sched" ]; then
	echo "diag-softirq: no ksoftirqd /proc/PID/sched here" >&2
	exit 1
fi
# ksoftirqd CPU time so far, in microseconds.
ksoft_us() { for k in $ks; do awk '/se.sum_exec_runtime/ { print $3 }' "/proc/$k/sched"; done | awk '{ s += $1 } END { printf "%.0f\n", s * 1000 }'; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
port=$((25000 + RANDOM % 10000))
echo "diag-softirq: $W -s $S -n $N on $dev, $REPS pairs; ksoftirqd = us of ksoftirqd CPU per iteration"
for ((r = 1; r <= REPS; r++)); do
	port=$((port + 1))
	"$B" server "${args[@]}" -p "$port" >/dev/null 2>&1 &
	s=$!
	sleep 1
	a=$(ksoft_us)
	"$B" run "$W" "$HOST" "${args[@]}" -p "$port" -n "$N" -s "$S" -o csv >"$tmp/rb.csv" 2>"$tmp/rb.err" || cat "$tmp/rb.err" >&2
	b=$(ksoft_us)
	wait "$s"
	awk -F, -v k=$((b - a)) -v n="$N" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == 2 { printf "rdma-bench p50 %7.2f us  mean %7.2f us  ksoftirqd %6.2f us/iter\n", $c["lat_p50_us"], $c["lat_mean_us"], k / n }' "$tmp/rb.csv"
	port=$((port + 1))
	"ib_$W" "${args[@]}" -F -p "$port" -s "$S" -n "$N" >/dev/null 2>&1 &
	s=$!
	sleep 1
	a=$(ksoft_us)
	"ib_$W" "${args[@]}" -F -p "$port" -s "$S" -n "$N" "$HOST" >"$tmp/pt.txt" 2>&1
	b=$(ksoft_us)
	wait "$s"
	awk -v s="$S" -v k=$((b - a)) -v n="$N" '$1 == s && NF >= 6 {
		printf "perftest   p50 %7.2f us  mean %7.2f us  ksoftirqd %6.2f us/iter\n", $5, $6, k / n }' "$tmp/pt.txt"
done
