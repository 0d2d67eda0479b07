#!/usr/bin/env bash
# The main job: `rdma-bench suite`, RDMA write/read/send latency and
# bandwidth against the TCP baseline at sizes 2 B to 1 MiB, side by side,
# on the first RDMA device, or on soft-RoCE in the QEMU VM when this host
# has none. The JSON document is saved under results/ (or --results-dir),
# the HTML report of it (rdma-bench report: tables and charts) beside it,
# and the report's path is the last line printed.
# Extra arguments go to `rdma-bench suite` (e.g. --sizes 64,4K -D 2).
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
[ -x ./rdma-bench ] || go build -o rdma-bench ./cmd/rdma-bench

# Where the document goes: the last --results-dir among the arguments, as
# the suite reads them, else results.
results=results
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[i]} in
	--results-dir) results=${args[i + 1]:-} ;;
	--results-dir=*) results=${args[i]#--results-dir=} ;;
	esac
done
if ! mkdir -p "$results" || [ ! -w "$results" ]; then
	echo "bench: cannot write into $results" >&2
	exit 2
fi

# The suite saves into a fresh directory of its own, inside the work tree
# that the VM shares, so that the one document there is the one it wrote.
# Its "saved" line, naming that temporary place, is left out: the path
# printed is the document's final one, below. The filter ignores Ctrl-C, so
# that the interrupted suite can still write (and save) what it measured.
mkdir -p .build
fresh=$(mktemp -d "$root/.build/bench.XXXXXX")
cmd=(./rdma-bench suite --loopback --save "$@" --results-dir "$fresh")
status=0
{
	if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
		"${cmd[@]}" || status=$?
	else
		echo "bench: no RDMA device on this host: running the suite on soft-RoCE in a QEMU VM (software-emulated: compare rows, not absolute figures)" >&2
		vm/run.sh -- "${cmd[@]}" || status=$?
	fi
} 2> >(trap '' INT TERM HUP && exec awk -v tmp="saved $fresh/" 'index($0, tmp) != 1 { print; fflush() }' >&2)
wait $! || true # the filter's last lines come before those below

shopt -s nullglob
docs=("$fresh"/rdma-bench-*.json)
if [ ${#docs[@]} -ne 1 ]; then
	rmdir "$fresh" 2>/dev/null || true
	echo "bench: the suite saved no document (exit $status)" >&2
	exit $((status == 0 ? 1 : status))
fi
# Into the results directory, under the suite's name, never over a file.
name=$(basename "${docs[0]}" .json)
json=$results/$name.json
n=0
while [ -e "$json" ]; do
	n=$((n + 1))
	json=$results/$name-$n.json
done
mv -n "${docs[0]}" "$json"
if [ -e "${docs[0]}" ]; then
	echo "bench: could not move ${docs[0]} to $json: the document stays where it is" >&2
	exit 1
fi
rmdir "$fresh"
# The document's args name the directory it now lives in, not the
# temporary one that is gone (the only place the random name occurs): the
# two as JSON strings, replaced as text, not as a pattern. json_string
# writes a string as rdma-bench's encoder (Go's encoding/json) does, byte
# for byte, so that the temporary one is found: \\ and \", the control
# characters as \b \f \n \r \t or \u00XX, the HTML ones (& < >) and
# U+2028 and U+2029 as \uXXXX. (Text that is not UTF-8, which Go writes as
# \ufffd, is not found: the args then keep the temporary name, as said
# below.)
json_string() {
	local s=${1//\\/\\\\} c ch esc
	s=${s//\"/\\\"}
	s=${s//$'\b'/\\b}
	s=${s//$'\f'/\\f}
	s=${s//$'\n'/\\n}
	s=${s//$'\r'/\\r}
	s=${s//$'\t'/\\t}
	for ((c = 1; c < 32; c++)); do
		printf -v ch %b "\\x$(printf %02x "$c")"
		printf -v esc '\\u%04x' "$c"
		s=${s//"$ch"/"$esc"}
	done
	s=${s//&/\\u0026}
	s=${s//</\\u003c}
	s=${s//>/\\u003e}
	s=${s//$'\xe2\x80\xa8'/\\u2028}
	s=${s//$'\xe2\x80\xa9'/\\u2029}
	printf '"%s"' "$s"
}
doc=$(<"$json")
from=$(json_string "$fresh")
if [[ $doc != *"$from"* ]]; then
	echo "bench: $json: its args do not name $fresh as this script writes it: they keep naming it" >&2
fi
printf '%s\n' "${doc//"$from"/"$(json_string "$results")"}" >"$json.tmp"
mv "$json.tmp" "$json"
echo "saved $json" >&2

# The report, made here from the saved document (the VM wrote it into the
# shared work tree).
html=${json%.json}.html
./rdma-bench report "$json" -o "$html" --title "rdma-bench suite: RDMA against TCP ($(basename "$json"))" >&2
echo "$html"
exit "$status"
