#!/usr/bin/env bash
# Resident memory of a long duration-mode run: rdma-bench keeps latency in
# an HdrHistogram fed in chunks, so RSS must stay flat however long the
# run. Samples the run's memory every INTERVAL seconds (SECONDS/20, at least
# 1) of a run of SECONDS (default 600, the 10 minutes the report issue asks
# for), prints the series, and the growth from the first sample after
# warm-up to the last.
#
# usage: scripts/bench-memory.sh [SECONDS] [WORKLOAD] [RUN FLAGS...]
#   e.g. scripts/bench-memory.sh 300 write_lat
#        scripts/bench-memory.sh 180 tcp_lat -s 2
#        scripts/bench-memory.sh 300 write_lat --report-interval 1s
#
# Columns: VmRSS, RssAnon and RssFile (/proc/PID/status), AnonHugePages
# (/proc/PID/smaps_rollup: anonymous memory backed by transparent huge
# pages), and the Go heap from GODEBUG=gctrace=1: GC cycles so far and the
# live heap after the last one (MB, as gctrace rounds it). The run's gctrace
# and progress lines are kept in .build/bench-memory.gc, its result (CSV) in
# .build/bench-memory.csv, the series in .build/bench-memory.out.
#
# RDMA workloads run on this host's RDMA device, or in the soft-RoCE VM
# (vm/run.sh) when it has none; tcp_lat and tcp_bw run on this host. The
# binary is built from the work tree into .build/bench-memory-rdma-bench
# (RDMA_BENCH_BIN overrides), so a stale ./rdma-bench is never measured.
#
# Transparent huge pages: where THP is "always" (Debian's kernel, so the VM),
# khugepaged collapses every 2 MiB range of anonymous memory that has at
# least one page in use into a huge page (max_ptes_none is 511 by default),
# a 2 MiB range per pass at its own pace (pages_to_scan every
# scan_sleep_millisecs): the Go heap arena and the runtime's other mappings
# are partly used, so RSS grows by a few MiB during the first minutes
# and then stays flat, whatever the program does (see "Linux transparent
# huge pages" in https://go.dev/doc/gc-guide). So that the series shows
# what the program touches, the measured process runs with THP disabled
# (prctl PR_SET_THP_DISABLE, through a helper built with cc, which needs no
# privileges and changes nothing system-wide). BENCH_MEMORY_THP=system
# measures under the system's setting instead: the AnonHugePages column
# then shows the collapse.
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
secs=${1:-600}
workload=${2:-write_lat}
shift $(($# < 2 ? $# : 2))
thp=${BENCH_MEMORY_THP:-off}
case $thp in
off | system) ;;
*)
	echo "bench-memory: BENCH_MEMORY_THP is $thp, want off or system" >&2
	exit 2
	;;
esac
mkdir -p .build
bin=${RDMA_BENCH_BIN:-$root/.build/bench-memory-rdma-bench}
[ -n "${RDMA_BENCH_BIN:-}" ] || go build -o "$bin" ./cmd/rdma-bench
nothp=''
if [ "$thp" = off ]; then
	nothp=$root/.build/bench-memory-nothp
	if [ ! -x "$nothp" ]; then
		cc -O2 -o "$nothp" -x c - <<'C'
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
/* Runs a command with transparent huge pages disabled for it and its children. */
int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CMD [ARGS...]\n", argv[0]);
		return 2;
	}
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
		perror("prctl PR_SET_THP_DISABLE");
		return 125;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
C
	fi
fi

guest=$(mktemp -p "$root/.build" bench-memory.XXXX.sh)
trap 'rm -f "$guest"' EXIT
cat >"$guest" <<'GUEST'
#!/usr/bin/env bash
# args: OUTDIR SECONDS NOTHP_HELPER|'' RDMA_BENCH WORKLOAD [RUN FLAGS...]
set -eu
out=$1 secs=$2 nothp=$3
shift 3
thpsys=/sys/kernel/mm/transparent_hugepage
echo "thp: enabled: $(cat $thpsys/enabled 2>/dev/null || echo '?');" \
	"khugepaged: max_ptes_none $(cat $thpsys/khugepaged/max_ptes_none 2>/dev/null || echo '?')," \
	"pages_to_scan $(cat $thpsys/khugepaged/pages_to_scan 2>/dev/null || echo '?')" \
	"every $(cat $thpsys/khugepaged/scan_sleep_millisecs 2>/dev/null || echo '?') ms;" \
	"measured process: $([ -n "$nothp" ] && echo 'THP disabled (PR_SET_THP_DISABLE)' || echo "the system's setting")"
bin=$1 workload=$2
shift 2
GODEBUG=gctrace=1 ${nothp:+"$nothp"} "$bin" run "$workload" --loopback -D "$secs" -o csv "$@" \
	>"$out/bench-memory.csv" 2>"$out/bench-memory.gc" &
pid=$!
interval=$((secs / 20 > 0 ? secs / 20 : 1))
echo "t[s] rss[KiB] anon[KiB] file[KiB] thp[KiB] gcs heap[MB]"
t=0
while kill -0 $pid 2>/dev/null; do
	status=$(cat /proc/$pid/status 2>/dev/null || true)
	if [ -n "$status" ]; then
		huge=$(awk '/^AnonHugePages:/ {print $2}' /proc/$pid/smaps_rollup 2>/dev/null || true)
		gc=$(awk '/^gc [0-9]+ @/ {n++; live = $0} END {sub(/ MB.*/, "", live); sub(/.*->/, "", live); print n + 0, (n ? live : "-")}' "$out/bench-memory.gc")
		echo "$status" | awk -v t=$t -v huge="${huge:--}" -v gc="$gc" '
			/^VmRSS:/ {rss = $2} /^RssAnon:/ {anon = $2} /^RssFile:/ {file = $2}
			END {if (rss != "") print t, rss, anon, file, huge, gc}'
	fi
	sleep $interval
	t=$((t + interval))
done
wait $pid
GUEST
chmod +x "$guest"
run=("$guest")
if [[ $workload != tcp_* ]] && [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ] && [ "${RDMA_BENCH_IN_VM:-}" != 1 ]; then
	run=(vm/run.sh --timeout $((secs + 600)) -- "$guest")
fi
status=0
"${run[@]}" "$root/.build" "$secs" "$nothp" "$bin" "$workload" "$@" | tee .build/bench-memory.out || status=$?
awk '/^gc [0-9]+ @/' .build/bench-memory.gc | tail -n 5 | sed 's/^/last gctrace lines: /'
awk '$1 ~ /^[0-9]+$/ {n++; if (n == 2) {t0 = $1; r0 = $2; a0 = $3; h0 = $5; g0 = $6}; t1 = $1; r1 = $2; a1 = $3; h1 = $5; g1 = $6}
	END {if (n >= 2) printf "growth from t=%s s to t=%s s: rss %+d KiB (%+.1f%%), anon %+d KiB, thp %+d KiB, %d GC cycles\n",
		t0, t1, r1 - r0, 100 * (r1 - r0) / r0, a1 - a0, h1 - h0, g1 - g0}' .build/bench-memory.out
exit "$status"
