#!/usr/bin/env bash
# Time and peak memory of the offline readers (compare, plot, report) over
# a directory of N copies of one saved suite document (make bench's, about
# 730 KB), half labelled "base" and half "new", each command as a whole
# process (/usr/bin/time: elapsed seconds and maximum resident KB). Give
# two binaries to measure them in turns, A B A B.
#
# usage: scripts/diag/reader-memory.sh SUITE.json [N] BIN [BIN2]
#   e.g. scripts/diag/reader-memory.sh results/rdma-bench-*-suite.json 1000 ./rdma-bench /tmp/rb-old
set -euo pipefail
doc=${1:?usage: reader-memory.sh SUITE.json [N] BIN [BIN2]}
n=${2:-1000}
shift 2
[ $# -ge 1 ] || { echo "reader-memory: name at least one binary" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "reader-memory: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$doc" "$n" "$work/docs" <<'PY'
import json, os, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = json.load(open(src))
os.makedirs(out)
for i in range(n):
    d["label"] = "base" if i % 2 == 0 else "new"
    d["started_at"] = "2026-11-26T%02d:%02d:%02dZ" % (i // 3600 % 24, i // 60 % 60, i % 60)
    with open(os.path.join(out, "d%05d.json" % i), "w") as f:
        json.dump(d, f, indent=2)
PY
echo "$(du -sh "$work/docs" | cut -f1) in $n documents of $(du -h "$doc" | cut -f1)"
for round in 1 2; do
  for bin in "$@"; do
    for cmd in compare plot report; do
      case $cmd in
        compare) args=(compare "$work/docs" --base-label base --label new) ;;
        plot) args=(plot "$work/docs" --dir "$work/plots") ;;
        report) args=(report "$work/docs" -o "$work/report.html") ;;
      esac
      /usr/bin/time -f "round $round $bin $cmd: %e s, %M KB" "$bin" "${args[@]}" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
      tail -n 1 "$work/err"
    done
  done
done
