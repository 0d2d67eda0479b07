#!/usr/bin/env bash
# scripts/diag/tick-mode.sh: looks for latency runs whose median sits at the
# scheduler's tick (4 ms at CONFIG_HZ=250) in a suite, and samples which
# threads run on which CPU meanwhile. Run it inside the VM:
#   vm/run.sh -- scripts/diag/tick-mode.sh [SUITE FLAGS]
# Prints every latency point's p50, then the threads sampled while a point
# at the tick was measured. docs/gate.md ("The 4 ms mode") has what it found.
set -euo pipefail
out=${TICK_OUT:-.build/tick-mode}
mkdir -p "$out"
./rdma-bench suite --loopback --sizes 64,4K -D 0.2 --repeat 2 -o json "$@" >"$out/suite.json" 2>"$out/suite.log" &
pid=$!
: >"$out/threads.log"
while kill -0 "$pid" 2>/dev/null; do
	{
		echo "t=$(date +%s.%N)"
		ps -eLo pid,tid,psr,pcpu,stat,comm --sort=-pcpu | awk 'NR == 1 || $4 > 5'
	} >>"$out/threads.log"
	sleep 0.2
done
wait "$pid" || echo "suite exit $?"
python3 - "$out/suite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    for run in r.get("runs") or [r]:
        lat = run.get("latency_us") or {}
        if lat.get("p50") is not None:
            print(f'{r["workload"]:10s} {r["size_bytes"]:6d} run {run.get("run", 1)} p50 {lat["p50"]:10.1f} us  started {run.get("started_at", "")}')
PY
