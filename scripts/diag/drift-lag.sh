#!/usr/bin/env bash
# scripts/diag/drift-lag.sh: how far apart in time two latency spans of one
# run (one set-up) may be before they differ as much as two runs do. Runs
# write_lat 64 B for 3 s with a live figure every 300 ms, RUNS times
# (default 12), then prints the robust sd of the log ratio of the spans'
# medians by how many spans apart they are. Run it in the VM:
#   vm/run.sh -- scripts/diag/drift-lag.sh [BINARY]
# docs/investigations/2026-12-01-overlapped-pairs.md has what it found.
set -euo pipefail
bin=${1:-./rdma-bench}
out=${DRIFT_OUT:-.build/drift-lag}
mkdir -p "$out"
for i in $(seq "${RUNS:-12}"); do
	"$bin" run write_lat --loopback -s 64 -D 3 --report-interval 300ms -o ndjson >"$out/run-$i.ndjson" 2>/dev/null
done
python3 - "$out" <<'PY'
import glob, json, math, statistics as st, sys
def rsd(x):
    m = st.median(x)
    return 1.4826 * st.median([abs(v - m) for v in x])
runs = []
for f in sorted(glob.glob(sys.argv[1] + "/run-*.ndjson")):
    v = [json.loads(l)["interval"]["latency_us"]["p50"] for l in open(f) if '"type":"interval"' in l.replace(" ", "")]
    runs.append([x for x in v if x])
for lag in (1, 2, 3, 4, 6):
    lr = [math.log(v[j + lag] / v[j]) for v in runs for j in range(len(v) - lag)]
    if len(lr) > 2:
        print("spans %d apart (%.1f s): robust sd %.1f%%, sd %.1f%%, %d ratios" % (lag, 0.3 * lag, 100 * rsd(lr), 100 * st.stdev(lr), len(lr)))
PY
