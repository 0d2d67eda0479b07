#!/usr/bin/env bash
# Time and peak memory of plot, report and compare over directories of N
# small documents, each with its own label, as a nightly firmware QA run
# leaves them: copies of one run document labelled r0000, r0001, ...,
# started a minute apart, 600 a day from 2026-01-01 00:00. With VARY=1
# each copy's p50 differs (5.00 to 5.89 us), as real nightly figures do
# (the trend then draws a line that is not flat). Each command runs as a
# whole process under /usr/bin/time, killed after LIMIT seconds (60);
# "killed" means it had not ended.
#
# usage: scripts/diag/labelled-dirs.sh RUN.json BIN N...
#   e.g. rdma-bench run tcp_lat --loopback -n 300 -o json > /tmp/tcp.json
#        scripts/diag/labelled-dirs.sh /tmp/tcp.json ./rdma-bench 400 600 800 900 1000 5000
set -euo pipefail
doc=${1:?usage: labelled-dirs.sh RUN.json BIN N...}
bin=${2:?usage: labelled-dirs.sh RUN.json BIN N...}
shift 2
[ $# -ge 1 ] || { echo "labelled-dirs: name at least one N" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "labelled-dirs: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
limit=${LIMIT:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in "$@"; do
	python3 - "$doc" "$n" "$work/d$n" "${VARY:-0}" <<'PY'
import datetime, json, os, sys
src, n, out, vary = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
d = json.load(open(src))
os.makedirs(out)
day0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
for i in range(n):
    d["label"] = "r%04d" % i
    d["started_at"] = (day0 + datetime.timedelta(days=i // 600, minutes=i % 600)).strftime("%Y-%m-%dT%H:%M:%SZ")
    if vary:
        p50 = 5.0 + (i * 37 % 90) / 100
        d["results"][0]["latency_us"]["p50"] = p50
        d["results"][0]["runs"][0]["latency_us"]["p50"] = p50
    with open(os.path.join(out, "r%04d.json" % i), "w") as f:
        json.dump(d, f)
PY
	for cmd in plot report compare; do
		case $cmd in
		plot) args=(plot "$work/d$n" --dir "$work/plots") ;;
		report) args=(report "$work/d$n" -o "$work/report.html") ;;
		compare) args=(compare --base-label r0000 --label "$(printf r%04d $((n - 1)))" -o json "$work/d$n") ;;
		esac
		status=0
		out=$(timeout -s KILL "$limit" /usr/bin/time -f '%e s %M KB' "$bin" "${args[@]}" 2>&1 >/dev/null) || status=$?
		if [ "$status" = 137 ]; then
			echo "$n $cmd: killed after ${limit} s"
		else
			echo "$n $cmd: exit $status, $(echo "$out" | tail -n 1)"
		fi
	done
	rm -rf "$work/d$n" "$work/plots" "$work/report.html"
done
