#!/usr/bin/env bash
# Does the soft-RoCE VM's latency level follow the host's speed?
#
# One long rdma-bench latency run (server and client in the VM, -D SECS,
# --report-interval INTERVAL) while a probe on the host times a fixed 2 M
# iteration integer loop every 50 ms (about 1 ms of one CPU, so it barely
# competes with the VM). Every line is timestamped on the host as it arrives,
# and each interval of the run is matched with the probe's samples in it.
# Prints per interval: the guest's p50 and message rate, the host probe's
# median ms; then the intervals split into the guest's slow and fast halves
# (at the midpoint between the 10th and 90th percentile of interval p50s)
# with the host probe's median in each. If the host's speed drove the guest's
# levels, the slow intervals' probe would read about as much slower as the
# guest is (1.5x); if the two medians agree, the levels come from elsewhere.
#
# What it showed on the machine this project was built on (20 s of read_lat
# 2 B): the interval p50s moved between about 29 and 45 us and back many
# times; the host probe read 0.8-1.5 ms throughout, no slower in the slow
# intervals, and slower at times when the guest was fast. The host does
# change speed by itself (scripts/host-speed.sh), but that is not what moves
# the guest's read_lat between levels. The probe is an integer loop, blind to
# contention for the host's caches and memory, which would slow QEMU's
# translated code without slowing it.
#
# Diagnostic, not a gate. Needs gcc and the VM of vm/run.sh.
#
# env: SECS=20 INTERVAL=250ms WORKLOAD=read_lat SIZE=2 RDMA_BENCH_BIN
set -euo pipefail

root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"

secs=${SECS:-20}
interval=${INTERVAL:-250ms}
workload=${WORKLOAD:-read_lat}
size=${SIZE:-2}
if ! [[ $secs =~ ^[0-9]+$ ]] || ((secs < 2 || secs > 600)); then
	echo "diag-levels: SECS=$secs: must be a whole number of seconds from 2 to 600" >&2
	exit 2
fi
if ! [[ $interval =~ ^[0-9]+ms$ ]] || ((${interval%ms} < 100)); then
	echo "diag-levels: INTERVAL=$interval: must be milliseconds, 100ms or more (e.g. 250ms)" >&2
	exit 2
fi
case $workload in
*_lat) ;;
*)
	echo "diag-levels: WORKLOAD=$workload: must be a latency workload (write_lat, read_lat, send_lat, atomic_lat)" >&2
	exit 2
	;;
esac
command -v gcc >/dev/null || { echo "diag-levels: needs gcc" >&2; exit 2; }
bin=${RDMA_BENCH_BIN:-}
if [ -z "$bin" ]; then
	if [ -x ./rdma-bench ]; then bin=$root/rdma-bench; else bin=$root/.build/rdma-bench; fi
fi
[ -x "$bin" ] || { echo "diag-levels: no rdma-bench binary at $bin (make build)" >&2; exit 2; }

dir=$(mktemp -d)
probe_pid=''
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -z "$probe_pid" ] || kill "$probe_pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

gcc -O1 -o "$dir/probe" scripts/diag/speed-probe.c

# The guest runs the server in the background and the client in front; the
# server is stopped whatever the client did.
guest="p=\$((20000 + RANDOM % 10000)); a=\${RDMA_BENCH_VM_ADDR:-127.0.0.1}
'$bin' server -x 1 -p \$p >/dev/null 2>&1 & s=\$!
sleep 1
'$bin' run $workload \$a -x 1 -p \$p -s $size -D $secs --report-interval $interval; rc=\$?
kill \$s 2>/dev/null; wait \$s 2>/dev/null; exit \$rc"

"$dir/probe" 2 0 50 >"$dir/probe.log" &
probe_pid=$!
echo "diag-levels: $workload $size B for $secs s in the VM, reports every $interval; host probe every 50 ms" >&2
rc=0
vm/run.sh --timeout $((secs + 300)) -- bash -c "$guest" 2>&1 |
	while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$dir/run.log" || rc=$?
kill "$probe_pid" 2>/dev/null || true
probe_pid=''
if [ "$rc" -ne 0 ] || ! grep -q 'interval:' "$dir/run.log"; then
	echo "diag-levels: the run failed (exit $rc):" >&2
	tail -n 20 "$dir/run.log" >&2
	exit 1
fi

# Interval lines: "<host time> [ 1.3s] interval: G Gb/s R Mpps p50 P us | ...".
# Each is matched with the probe samples of the interval that ended there.
iv_s=$(awk -v i="${interval%ms}" 'BEGIN { print i / 1000 }')
awk -v iv="$iv_s" '
function isort(v, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
}
function median(v, n) {
	isort(v, n)
	return n ? ((n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : 0
}
FNR == NR { pt[++np] = $1; pm[np] = $2; next }
/ interval: / {
	for (k = 1; k <= NF; k++) { if ($k == "Mpps") rate = $(k - 1); if ($k == "p50") { p50 = $(k + 1); break } }
	n = 0
	for (k = 1; k <= np; k++) if (pt[k] > $1 - iv && pt[k] <= $1) w[++n] = pm[k]
	match($0, /\[ *[0-9.]+s\]/)
	t[++ni] = substr($0, RSTART + 1, RLENGTH - 2); sub(/^ +/, "", t[ni])
	gp[ni] = p50; gr[ni] = rate; hm[ni] = median(w, n)
}
END {
	if (ni < 4) { print "diag-levels: too few intervals to compare" > "/dev/stderr"; exit 1 }
	printf "%8s %10s %9s %14s\n", "interval", "guest p50", "Mpps", "host probe ms"
	for (i = 1; i <= ni; i++) printf "%8s %10.1f %9.3f %14.2f\n", t[i], gp[i], gr[i], hm[i]
	for (i = 1; i <= ni; i++) s[i] = gp[i]
	isort(s, ni)
	cut = (s[int(ni * 0.1) + 1] + s[int(ni * 0.9)]) / 2
	ns = nf = 0
	for (i = 1; i <= ni; i++) if (gp[i] > cut) { hs[++ns] = hm[i]; ps[ns] = gp[i] } else { hf[++nf] = hm[i]; pf[nf] = gp[i] }
	printf "\nguest slow intervals (p50 > %.1f us): %d, guest p50 median %.1f us, host probe median %.2f ms\n", cut, ns, median(ps, ns), median(hs, ns)
	printf "guest fast intervals: %d, guest p50 median %.1f us, host probe median %.2f ms\n", nf, median(pf, nf), median(hf, nf)
	if (ns && nf && median(pf, nf) > 0 && median(hf, nf) > 0)
		printf "slow/fast: guest %.2fx, host probe %.2fx\n", median(ps, ns) / median(pf, nf), median(hs, ns) / median(hf, nf)
}' "$dir/probe.log" "$dir/run.log"
