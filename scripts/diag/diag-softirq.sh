#!/usr/bin/env bash
# Where a latency iteration's time goes on soft-RoCE, for rdma-bench and the
# matching perftest tool run alternately. Each client run is traced with perf
# (sched_switch, sched_wakeup and the client's write(2) calls, which are rxe's
# doorbells). Every iteration, from one doorbell to the next, is put in a
# class by what happened in it on the client's side: a ksoftirqd wake-up on
# the client's CPU (or another), a switch away from the client, to what. For
# each run the script prints the p50 the tool reported; per class, its
# share of the iterations and its median length; and a timeline, the median
# length of each block of BLOCK iterations in time order.
#
# What it showed in the VM (read_lat, 2 B): with both tools, 84-92% of the
# iterations wake ksoftirqd on the client's CPU, which then preempts the
# client; the rest wake nothing. The first kind takes about 15 us longer
# (traced, under emulation), so the median is that kind's length, and a tool's
# share of the second kind moves its mean, not its p50. rxe runs a READ's requester,
# responder and completer inside the client's post; ksoftirqd, woken when the
# responder is scheduled as a tasklet, finds the work done.
# The timelines showed both tools' block medians switching, within one run,
# between levels about 1.6 times apart (traced: about 35 and 60 us), each
# lasting from a tenth of a second to seconds. The host's CPU speed does not
# follow them (scripts/diag-levels.sh: an integer probe on the host stayed
# steady while the guest switched), but that probe cannot see contention for
# the host's caches and memory; their cause is not known. A short run
# (-n 1000 takes about 30 ms) sits in one level, which is why run p50s are
# bimodal.
#
# Diagnostic, not a gate. Tracing slows every iteration: compare classes and
# tools within one run of the script, not its lengths with untraced runs.
#
# usage: scripts/diag/diag-softirq.sh            (runs in the VM when the host has
#                                             no RDMA device)
# env:   REPS=2 N=20000 BLOCK=1000 W=read_lat S=2 RDMA_DEV (default: first) GID_INDEX
#        (default 1 in the VM) HOST=127.0.0.1 RDMA_BENCH_BIN
# Needs perf (Debian: linux-perf) for the running kernel, and root.
set -uo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root" || exit 1
if ! command -v perf >/dev/null; then
	echo "diag-softirq: needs perf (Debian: apt-get install linux-perf)" >&2
	exit 1
fi
for v in REPS N BLOCK; do
	[[ ${!v:-1} =~ ^[1-9][0-9]*$ ]] || { echo "diag-softirq: $v=${!v}: want a positive integer" >&2; exit 2; }
done
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ] && [ "${RDMA_BENCH_IN_VM:-}" != 1 ]; then
	bin=${RDMA_BENCH_BIN:-$root/.build/rdma-bench}
	[ -n "${RDMA_BENCH_BIN:-}" ] || go build -o "$bin" ./cmd/rdma-bench || exit 1
	vars=(RDMA_BENCH_BIN="$bin")
	for v in REPS N BLOCK W S RDMA_DEV GID_INDEX HOST; do [ -z "${!v:-}" ] || vars+=("$v=${!v}"); done
	exec vm/run.sh --timeout 1200 -- env "${vars[@]}" scripts/diag/diag-softirq.sh
fi
REPS=${REPS:-2} N=${N:-20000} BLOCK=${BLOCK:-1000} W=${W:-read_lat} S=${S:-2} HOST=${HOST:-127.0.0.1}
B=${RDMA_BENCH_BIN:-$root/.build/rdma-bench}
# shellcheck disable=SC2012 # device names are plain
dev=${RDMA_DEV:-$(ls /sys/class/infiniband | head -n 1)}
gid=${GID_INDEX:-}
[ -n "$gid" ] || [ "${RDMA_BENCH_IN_VM:-}" != 1 ] || gid=1
args=(-d "$dev")
[ -z "$gid" ] || args+=(-x "$gid")
echo -1 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
port=$((25000 + RANDOM % 10000))
events=(-e syscalls:sys_enter_write -e sched:sched_switch -e sched:sched_wakeup)

# iterations FILE COMM: one line per iteration of the client thread of COMM
# (the thread with the most write calls) in a perf script dump, in time
# order: its class and its length in us. The first and last tenth of the
# iterations (warm-up, start and end) are skipped.
iterations() {
	awk -v want="$2" '
	function parse(   i) {
		for (i = 2; i <= NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) {
				tid = $(i - 1); cpu = substr($i, 2, length($i) - 2) + 0
				t = $(i + 1); sub(/:$/, "", t); ev = $(i + 2); sub(/:$/, "", ev)
				return 1
			}
		return 0
	}
	NR == FNR { if (parse() && ev == "syscalls:sys_enter_write" && $1 == want) n[tid]++; next }
	FNR == 1 { for (k in n) if (n[k] > best) { best = n[k]; client = k }; skip = int(best / 10) }
	!parse() { next }
	ev == "syscalls:sys_enter_write" && tid == client {
		if (++w > skip + 1 && w <= best - skip) print key == "" ? "nothing" : substr(key, 2), (t - t0) * 1e6
		t0 = t; ccpu = cpu; key = ""; next
	}
	w <= skip { next }
	ev == "sched:sched_switch" && index($0, "prev_pid=" client " ") {
		m = $0; sub(/.*next_comm=/, "", m); sub(/ .*/, "", m); sub(/\/.*/, "", m)
		key = key ",switch-to-" m; next
	}
	ev == "sched:sched_wakeup" {
		m = $0; sub(/.*comm=/, "", m); sub(/ .*/, "", m); sub(/\/.*/, "", m)
		c = $0; sub(/.*target_cpu=/, "", c); c += 0
		if (m != "perf") key = key ",wake-" m (c == ccpu ? "-here" : "-elsewhere")
	}' "$1" "$1"
}

# classes: each class's share and median length, from iterations' lines on
# standard input. Classes under 0.1% of the iterations are left out.
classes() {
	sort -k1,1 -k2,2n | awk '
	{ v[$1, ++c[$1]] = $2; total++ }
	END {
		for (k in c)
			if (c[k] * 1000 >= total)
				printf "  %5.1f%%  median %7.1f us  %s\n", 100 * c[k] / total, v[k, int((c[k] + 1) / 2)], k
	}' | sort -rn | head -n 6
}

# timeline: the median length of each block of BLOCK iterations, in time
# order, from iterations' lines on standard input (so without the first and
# last tenth of the run). The emulated machine switches between speed levels
# that last from a tenth of a second to seconds; this shows them inside one run.
timeline() {
	awk -v b="$BLOCK" '{ print int((NR - 1) / b), $2 }' | sort -k1,1n -k2,2n | awk '
	$1 != blk { if (n) printf " %.0f", v[int((n + 1) / 2)]; blk = $1; n = 0 }
	{ v[++n] = $2 }
	END { if (n) printf " %.0f", v[int((n + 1) / 2)]; print "" }' | sed "s/^/  timeline (median us per $BLOCK iterations):/"
}

# summary FILE COMM: classes and timeline of one traced run.
summary() {
	iterations "$1" "$2" >"$1.it"
	classes <"$1.it"
	timeline <"$1.it"
}

# traced TAG SERVER-CMD -- CLIENT-CMD: starts the server, runs the client
# under perf, waits for the server, and leaves the client's output in
# $tmp/TAG.out and the trace dump in $tmp/TAG.txt.
traced() {
	local tag=$1 srv=()
	shift
	while [ "$1" != -- ]; do srv+=("$1") && shift; done
	shift
	port=$((port + 1))
	"${srv[@]}" -p "$port" >/dev/null 2>&1 &
	local s=$!
	sleep 1
	perf record -q "${events[@]}" -a -o "$tmp/$tag.data" -- "$@" -p "$port" >"$tmp/$tag.out" 2>"$tmp/$tag.err" || cat "$tmp/$tag.err" >&2
	wait "$s"
	perf script -i "$tmp/$tag.data" -F comm,tid,cpu,time,event,trace >"$tmp/$tag.txt" 2>/dev/null
}

echo "diag-softirq: $W -s $S -n $N on $dev, $REPS pairs, traced; iteration classes by share"
for ((r = 1; r <= REPS; r++)); do
	traced rb "$B" server "${args[@]}" -- "$B" run "$W" "$HOST" "${args[@]}" -n "$N" -s "$S" -o csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == 2 { printf "rdma-bench p50 %.2f us\n", $c["lat_p50_us"] }' "$tmp/rb.out"
	summary "$tmp/rb.txt" rdma-bench
	traced pt "ib_$W" "${args[@]}" -F -s "$S" -n "$N" -- "ib_$W" "${args[@]}" -F -s "$S" -n "$N" "$HOST"
	awk -v s="$S" '$1 == s && NF >= 6 { printf "perftest   p50 %.2f us\n", $5 }' "$tmp/pt.out"
	summary "$tmp/pt.txt" "ib_$W"
done
