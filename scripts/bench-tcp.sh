#!/usr/bin/env bash
# The TCP baseline against the tools users trust for TCP, on this host's
# loopback, alternating A B A B (REPS pairs, default 3): tcp_lat p50
# against sockperf ping-pong --tcp and qperf tcp_lat (goal: ratio <= 1.00),
# tcp_bw against iperf3 and qperf tcp_bw (goal: ratio >= 0.95). Every tool
# runs as a server and a client process. Prints medians and ratios
# rdma-bench/anchor. rdma-bench runs with -e (blocking calls), as the
# anchors do by default.
#
# PIN=CPUS (a taskset list, e.g. PIN=0) runs every server and client on
# those CPUs. Unpinned, a loopback ping-pong is bimodal on a small VM: the
# two processes share a CPU (a context switch per message) or not (a
# cross-CPU wake-up, several times slower), as the scheduler and the other
# load on the machine decide, run by run.
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
REPS=${REPS:-3}
SECS=${SECS:-2}
need=()
for t in sockperf qperf iperf3; do command -v $t >/dev/null || need+=($t); done
if [ ${#need[@]} -gt 0 ]; then
	sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
[ -x ./rdma-bench ] || go build -o rdma-bench ./cmd/rdma-bench
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
port=$((30000 + RANDOM % 20000))
pin=()
[ -z "${PIN:-}" ] || pin=(taskset -c "$PIN")

# Each function prints one number: p50 latency in us, or bandwidth in Gb/s.
rb_lat() { # size
	port=$((port + 3))
	"${pin[@]}" ./rdma-bench server -p $port 2>/dev/null & pids+=($!)
	sleep 0.5
	timeout 120 "${pin[@]}" ./rdma-bench run tcp_lat 127.0.0.1 -p $port -e -s "$1" -D "$SECS" -o csv |
		awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "lat_p50_us") c = i} NR == 2 {print $c}'
	wait "${pids[-1]}" 2>/dev/null || true
}
rb_bw() {
	port=$((port + 3))
	"${pin[@]}" ./rdma-bench server -p $port 2>/dev/null & pids+=($!)
	sleep 0.5
	timeout 120 "${pin[@]}" ./rdma-bench run tcp_bw 127.0.0.1 -p $port -e -s 64K -D "$SECS" -o csv |
		awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "bw_gbps") c = i} NR == 2 {print $c}'
	wait "${pids[-1]}" 2>/dev/null || true
}
sockperf_lat() { # size
	port=$((port + 3))
	"${pin[@]}" sockperf server --tcp -i 127.0.0.1 -p $port >/dev/null 2>&1 & pids+=($!)
	sleep 0.5
	timeout 120 "${pin[@]}" sockperf ping-pong --tcp -i 127.0.0.1 -p $port -m "$1" -t "$SECS" 2>&1 |
		awk '/percentile 50.000/ {print $NF}'
	kill "${pids[-1]}" 2>/dev/null || true
}
qperf_lat() { # size
	port=$((port + 3))
	"${pin[@]}" qperf -lp $port >/dev/null 2>&1 & pids+=($!)
	sleep 0.5
	timeout 120 "${pin[@]}" qperf -lp $port -t "$SECS" 127.0.0.1 -m "$1" tcp_lat |
		awk '$1 == "latency" {v = $3; if ($4 == "ms") v *= 1000; if ($4 == "ns") v /= 1000; print v}'
	kill "${pids[-1]}" 2>/dev/null || true
}
qperf_bw() {
	port=$((port + 3))
	"${pin[@]}" qperf -lp $port >/dev/null 2>&1 & pids+=($!)
	sleep 0.5
	timeout 120 "${pin[@]}" qperf -lp $port -t "$SECS" 127.0.0.1 -m 64K tcp_bw |
		awk '$1 == "bw" {v = $3; if ($4 == "GB/sec") v *= 8; else if ($4 == "MB/sec") v *= 0.008; print v}'
	kill "${pids[-1]}" 2>/dev/null || true
}
iperf3_bw() {
	port=$((port + 3))
	"${pin[@]}" iperf3 -s -1 -p $port >/dev/null 2>&1 & pids+=($!)
	sleep 0.5
	timeout 120 "${pin[@]}" iperf3 -c 127.0.0.1 -p $port -l 64K -t "$SECS" -J |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9)'
	wait "${pids[-1]}" 2>/dev/null || true
}

median() { sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# compare NAME GOAL A-CMD B-CMD: A B A B ..., then medians and the ratio.
compare() {
	local name=$1 goal=$2 a=$3 b=$4
	: >"$tmp/a"; : >"$tmp/b"
	for _ in $(seq "$REPS"); do
		$a >>"$tmp/a"
		$b >>"$tmp/b"
	done
	ma=$(median <"$tmp/a"); mb=$(median <"$tmp/b")
	awk -v n="$name" -v a="$ma" -v b="$mb" -v g="$goal" -v ra="$(paste -sd' ' "$tmp/a")" -v rb="$(paste -sd' ' "$tmp/b")" 'BEGIN {
		r = a / b
		ok = (g ~ /^<=/) ? (r <= substr(g, 3) + 0) : (r >= substr(g, 3) + 0)
		printf "%-38s %10.3f %10.3f %7.2f  %-6s %s   [%s | %s]\n", n, a, b, r, g, ok ? "MET" : "MISSED", ra, rb
	}'
}

printf "%-38s %10s %10s %7s  %s\n" "case (A = rdma-bench, B = anchor)" "A median" "B median" "A/B" "goal"
compare "tcp_lat 14 B p50 [us] vs sockperf" "<=1.00" "rb_lat 14" "sockperf_lat 14"
compare "tcp_lat 2 B p50 [us] vs qperf (mean)" "<=1.00" "rb_lat 2" "qperf_lat 2"
compare "tcp_bw 64 KiB [Gb/s] vs iperf3" ">=0.95" rb_bw iperf3_bw
compare "tcp_bw 64 KiB [Gb/s] vs qperf" ">=0.95" rb_bw qperf_bw
