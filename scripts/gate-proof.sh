#!/usr/bin/env bash
# scripts/gate-proof.sh: the experiments behind docs/gate.md, each one or
# more runs of `rdma-bench gate` whose candidate is either the base itself
# (A/A: the gate must not fail) or slower by construction (the gate must
# fail). All experiments of one call run in one VM boot (vm/run.sh) when
# this host has no RDMA device.
#
# usage: scripts/gate-proof.sh EXPERIMENT...
#   aa:K                    K A/A gates of the default points, default settings
#   aa2:K                   K A/A gates of write_lat:64 write_bw:4K
#   pool:NAME:PAIRS[:NS]    one gate of write_lat:64 write_bw:4K with one look
#                           after PAIRS pairs: a pool of pairs to resample or a
#                           calibration; the candidate is the slowdown build at
#                           NS (RDMA_BENCH_SLOWDOWN_NS: LAT,BW nanoseconds per
#                           post; default: the base binary itself)
#   slow:NAME:NS:K          K gates of write_lat:64 write_bw:4K against the
#                           slowdown build at NS
#   real:NAME:GATE-FLAGS    one gate of write_lat:64 write_bw:4K with the given
#                           flags (commas between arguments),
#                           for a real change: "real:mtu256:--candidate-args,-m 256"
#   summary                 a line per gate measured so far (on the host, no VM):
#                           exit, seconds, and per point the decision, pairs and
#                           change
#   netem:US                one gate of write_lat:64 and write_bw:4K between two
#                           rxe devices on a veth pair, the candidate behind a
#                           netem delay of US microseconds on both veths
#   one:NAME[:NS]           one gate of write_lat:64 write_bw:4K at the defaults
#                           into NAME, against the slowdown build at NS when
#                           given (for A/A and slowdown gates interleaved with
#                           other experiments: one:aa2-07, one:slow-s5-03:1500,7500)
#   width:NAME:SECONDS[:FLAGS]  an A/A gate of write_lat:64 write_bw:4K that
#                           measures for SECONDS with no look but the final one:
#                           the half-width at equal time of a way of running
#                           (FLAGS, commas between arguments: "--worker=false")
#   session:NAME[:NS]       one session of the firmware recipe (rdma-bench suite
#                           --loopback --sizes 64 -D 0.2 --repeat 5 --save
#                           --label NAME) into $out/sessions, of the slowdown
#                           build at NS when given
#   pause:SECONDS           wait, in the VM: sessions minutes apart
#
# --load (first): a standard load beside the VM for the whole call, on the
# host: one process busy half of every 20 ms (half of one core), started
# before the VM boots and stopped after it ends.
#
# Every gate goes to results/gate-proof/NAME[-i]/: its document (gate-*.json),
# gate.txt (the table), gate.log (progress) and exit. A directory that holds
# an exit file is skipped (delete it to measure again). The slowdown build
# is .build/rdma-bench-slowdown (go build -tags rdmabench_slowdown).
set -euo pipefail

root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
out=${RDMA_BENCH_GATE_PROOF_OUT:-results/gate-proof}
bin=$root/rdma-bench
slow=$root/.build/rdma-bench-slowdown
port=18611
two=(write_lat:64 write_bw:4K)

# gate NAME FLAGS...: one gate into $out/NAME.
gate() {
	local name=$1 dir=$out/$1 rc=0
	shift
	if [ -f "$dir/exit" ]; then
		echo "gate-proof: $name: done before" >&2
		return 0
	fi
	mkdir -p "$dir"
	echo "gate-proof: $name: rdma-bench gate $*" >&2
	"$bin" gate --save-dir "$dir" "$@" >"$dir/gate.txt" 2>"$dir/gate.log" || rc=$?
	echo "$rc" >"$dir/exit"
	echo "gate-proof: $name: exit $rc, $(tail -n 1 "$dir/gate.txt")" >&2
}

experiment() {
	local e=$1 kind rest i
	kind=${e%%:*}
	rest=${e#*:}
	case $kind in
	aa)
		for ((i = 1; i <= rest; i++)); do
			gate "aa-$(printf %02d "$i")"
		done
		;;
	aa2)
		for ((i = 1; i <= rest; i++)); do
			gate "aa2-$(printf %02d "$i")" "${two[@]}"
		done
		;;
	pool)
		local name pairs ns flags=()
		IFS=: read -r name pairs ns <<<"$rest"
		[ -z "$ns" ] || flags=(--candidate-bin "$slow" --candidate-env "RDMA_BENCH_SLOWDOWN_NS=$ns")
		gate "pool-$name" "${two[@]}" --max-pairs "$pairs" --first-look "$pairs" --budget 2h "${flags[@]}"
		;;
	slow)
		local name ns k
		IFS=: read -r name ns k <<<"$rest"
		for ((i = 1; i <= k; i++)); do
			gate "slow-$name-$(printf %02d "$i")" "${two[@]}" --candidate-bin "$slow" --candidate-env "RDMA_BENCH_SLOWDOWN_NS=$ns"
		done
		;;
	real)
		local name flags
		name=${rest%%:*}
		IFS=, read -r -a flags <<<"${rest#*:}"
		gate "real-$name" "${two[@]}" "${flags[@]}"
		;;
	one)
		local name ns flags=()
		IFS=: read -r name ns <<<"$rest"
		[ -z "$ns" ] || flags=(--candidate-bin "$slow" --candidate-env "RDMA_BENCH_SLOWDOWN_NS=$ns")
		gate "$name" "${two[@]}" "${flags[@]}"
		;;
	width)
		local name secs flags=()
		IFS=: read -r name secs rest <<<"$rest"
		[ -z "$rest" ] || IFS=, read -r -a flags <<<"$rest"
		gate "width-$name" "${two[@]}" --first-look 1000 --max-pairs 1000 --budget "${secs}s" "${flags[@]}"
		;;
	session)
		local name ns b=$bin dir=$out/sessions rc=0 env=()
		IFS=: read -r name ns <<<"$rest"
		[ -z "$ns" ] || { b=$slow; env=("RDMA_BENCH_SLOWDOWN_NS=$ns"); }
		mkdir -p "$dir"
		echo "gate-proof: session $name" >&2
		env "${env[@]}" "$b" suite --loopback --sizes 64 -D 0.2 --repeat 5 --save --results-dir "$dir" --label "$name" \
			>>"$out/sessions.log" 2>&1 || rc=$?
		echo "gate-proof: session $name: exit $rc" >&2
		;;
	pause)
		echo "gate-proof: pause ${rest}s" >&2
		sleep "$rest"
		;;
	netem)
		bash cmd/rdma-bench/testdata/veth-rxe.sh down >/dev/null 2>&1 || true
		bash cmd/rdma-bench/testdata/veth-rxe.sh up
		"$bin" server --persistent -d rxeb -p "$port" >"$out/netem-server.log" 2>&1 &
		local spid=$! q="tc qdisc replace dev veth0 root netem delay ${rest}us && tc qdisc replace dev veth1 root netem delay ${rest}us"
		sleep 2
		gate "netem-${rest}us" write_lat:64 write_bw:4K --host 127.0.0.1 --base-args "-d rxea -p $port" \
			--candidate-args "-d rxea -p $port" --candidate-before "$q" \
			--candidate-after "tc qdisc del dev veth0 root; tc qdisc del dev veth1 root"
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		bash cmd/rdma-bench/testdata/veth-rxe.sh down
		;;
	*)
		echo "gate-proof: unknown experiment $e (see the usage at the top of $0)" >&2
		return 2
		;;
	esac
}

if [ "${1:-}" = summary ]; then
	for d in "$out"/*/; do
		doc=$(ls "$d"gate-*.json 2>/dev/null | tail -n 1)
		[ -n "$doc" ] || continue
		jq -r --arg name "$(basename "$d")" --arg exit "$(cat "$d/exit" 2>/dev/null || echo -)" '
			def pct: if . == null then "inf" else (. * 10 | round / 10 | tostring) end;
			"\($name) exit \($exit) \(.seconds | floor) s: " + ([.rows[] |
			"\(.point.workload) \(.point.size_bytes) \(.decision) \(.pairs) \(.estimate_pct | pct)% [\(.lo_pct | pct), \(.hi_pct | pct)]"] | join("; "))' "$doc"
	done
	exit 0
fi
if [ "${1:-}" = --in-vm ]; then
	shift
	for e in "$@"; do
		experiment "$e"
	done
	exit 0
fi
load=''
if [ "${1:-}" = --load ]; then
	load=1
	shift
fi
[ $# -gt 0 ] || { sed -n '2,45p' "$0" >&2; exit 2; }
[ -x "$bin" ] || make -s build
mkdir -p .build "$out"
go build -tags rdmabench_slowdown -o "$slow" ./cmd/rdma-bench
if [ -n "$load" ]; then
	# Half of one core: busy 10 ms, asleep 10 ms.
	perl -MTime::HiRes=time,sleep -e 'while (1) { my $t = time + 0.01; 1 while time < $t; sleep 0.01 }' &
	lpid=$!
	trap 'kill $lpid 2>/dev/null' EXIT
	echo "gate-proof: standard load on the host (pid $lpid, half of one core)" >&2
fi
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	"$0" --in-vm "$@"
else
	RDMA_BENCH_VM_TIMEOUT=${RDMA_BENCH_VM_TIMEOUT:-14400} vm/run.sh -- "$0" --in-vm "$@"
fi
