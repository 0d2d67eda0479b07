#!/bin/bash
# fabric-overhead.sh N ITERS OUTDIR [WORKLOAD] [FLAGS...]: an all-pairs
# fabric sweep of N ranks on this host (coordinator on 127.0.0.1), rank 0's
# document in OUTDIR/doc.json, the others' output in OUTDIR/rK.log; prints
# the wall time. scripts/fabric-overhead.py splits a round's time into its
# parts. docs/investigations/2026-11-29-fabric-round-overhead.md.
set -u
N=$1 IT=$2 OUT=$3 WL=${4:-tcp_lat}
shift 3; [ $# -gt 0 ] && shift
BIN=${RDMA_BENCH_BIN:-./rdma-bench}
mkdir -p "$OUT"
PORT=$((20000 + RANDOM % 12000))
args=("$WL" "$@" -n "$IT" --warmup 0 --coordinator 127.0.0.1:$PORT --advertise 127.0.0.1 --threshold 1000000 --pair-timeout 30s --outlier-pairs 12)
for r in $(seq 1 $((N - 1))); do "$BIN" fabric "${args[@]}" --rank "$r" --world-size "$N" >"$OUT/r$r.log" 2>&1 & done
s=$(date +%s.%N)
"$BIN" fabric "${args[@]}" --rank 0 --world-size "$N" -o json --output-file "$OUT/doc.json" 2>"$OUT/r0.err"
rc=$?
e=$(date +%s.%N)
wait
echo "$WL N=$N -n $IT $*: exit $rc, wall $(echo "$e - $s" | bc) s"
