#!/usr/bin/env bash
# scripts/gate-proof.sh: the experiments behind docs/gate.md. Each one is a
# run of the gate (scripts/gate.sh, with its defaults unless said) whose
# candidate is either the same as the baseline (A/A: the gate must not fail)
# or slowed down on purpose (the gate must fail and name the point and the
# metric). Every VM session is one gate: short, so that others can use the
# machine between them.
#
# usage: scripts/gate-proof.sh aa [N]             N A/A gates (default 10)
#        scripts/gate-proof.sh hog NICE...        candidate beside one busy loop at
#                                                 each nice level (19 = barely runs)
#        scripts/gate-proof.sh txdepth DEPTH...   candidate with -t DEPTH (a shallow send
#                                                 queue: bandwidth drops by construction)
#        scripts/gate-proof.sh netem DELAY_US...  client on rxea, server on rxeb, over a
#                                                 veth pair; candidate with a netem delay
#                                                 on both veths
#        scripts/gate-proof.sh summary            one line per experiment so far
#
# Every experiment goes to results/gate-proof/NAME/: the documents, gate.txt
# (the gate's table), gate.json (the same comparison as JSON) and exit (the
# gate's exit status); `summary` reads them. A NAME already done is skipped
# (delete its directory to measure it again).
#
# Environment: RDMA_BENCH_PROOF_LOCK, a lock file held (flock) around every
# gate, for machines where several people take turns at the VM; every
# RDMA_BENCH_GATE_* setting of scripts/gate.sh.
set -euo pipefail

root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
out=results/gate-proof
netem_port=18611

# gate NAME [VAR=VALUE...]: one gate run (or, for netem, a measurement in
# the VM and the gate's comparison on the host) into $out/NAME.
gate() {
	local name=$1 dir=$out/$1 rc=0 lock=()
	shift
	if [ -f "$dir/exit" ]; then
		echo "gate-proof: $name: done before ($dir/exit)" >&2
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	[ -z "${RDMA_BENCH_PROOF_LOCK:-}" ] || lock=(flock "$RDMA_BENCH_PROOF_LOCK")
	echo "gate-proof: $name: $*" >&2
	echo "$*" >"$dir/settings"
	if [[ $name == netem-* ]]; then
		env "$@" "${lock[@]}" vm/run.sh -- "$0" --netem-guest "$dir" >"$dir/gate.txt" 2>"$dir/gate.log" || rc=$?
		[ "$rc" -ne 0 ] || env "$@" scripts/gate.sh --compare "$dir" >"$dir/gate.txt" 2>>"$dir/gate.log" || rc=$?
	else
		env "$@" RDMA_BENCH_GATE_RESULTS="$dir" "${lock[@]}" scripts/gate.sh >"$dir/gate.txt" 2>"$dir/gate.log" || rc=$?
	fi
	if compgen -G "$dir/*.json" >/dev/null; then
		env "$@" RDMA_BENCH_GATE_COMPARE_FLAGS="${RDMA_BENCH_GATE_COMPARE_FLAGS:-} -o json" \
			scripts/gate.sh --compare "$dir" >"$dir/gate.json.tmp" 2>/dev/null || true
		mv "$dir/gate.json.tmp" "$dir/gate.json"
	fi
	echo "$rc" >"$dir/exit"
	summary_line "$name"
}

# summary_line NAME: the experiment's exit status, gated rows by outcome,
# and every failed row with its change and interval.
summary_line() {
	local dir=$out/$1
	printf '%-16s exit %s  ' "$1" "$(cat "$dir/exit")"
	if [ ! -s "$dir/gate.json" ]; then
		echo "(no comparison)"
		return
	fi
	jq -r '
		def pct: if . == null then "inf" else (. * 10 | round / 10 | tostring) end;
		.gate as $g
		| "gated: \($g.fail) fail, \($g.inconclusive) inconclusive, \($g.pass) pass"
		  + ([.rows[] | select(.gate.outcome == "fail")
		      | "\n    fail: \(.point) \(.metric) \(.change_pct | pct)% [\(.change_ci_lo_pct | pct), \(.change_ci_hi_pct | pct)]"] | join(""))
		  + ([.rows[] | select(.gate.outcome == "inconclusive")
		      | "\(.point) \(.metric) \(.change_pct | pct)%"] | if length > 0 then "\n    inconclusive: " + join("; ") else "" end)
	' "$dir/gate.json"
}

# netem_guest DIR: inside the VM: two rxe devices on a veth pair, a server
# on rxeb, and the gate's measurement with the candidate behind a netem
# delay of RDMA_BENCH_PROOF_DELAY_US on both veths.
netem_guest() {
	local dir=$1 d=${RDMA_BENCH_PROOF_DELAY_US:?} srv rc=0
	bash cmd/rdma-bench/testdata/veth-rxe.sh down >/dev/null 2>&1 || true
	bash cmd/rdma-bench/testdata/veth-rxe.sh up
	./rdma-bench server --persistent -d rxeb -p "$netem_port" >"$dir/server.log" 2>&1 &
	srv=$!
	sleep 1
	RDMA_BENCH_GATE_TARGET="127.0.0.1 -d rxea -p $netem_port" \
		RDMA_BENCH_GATE_CANDIDATE_BEFORE="tc qdisc replace dev veth0 root netem delay ${d}us && tc qdisc replace dev veth1 root netem delay ${d}us" \
		RDMA_BENCH_GATE_CANDIDATE_AFTER="tc qdisc del dev veth0 root && tc qdisc del dev veth1 root" \
		scripts/gate.sh --measure "$dir" || rc=$?
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	bash cmd/rdma-bench/testdata/veth-rxe.sh down
	return "$rc"
}

[ -x ./rdma-bench ] || make -s build
cmd=${1:-}
shift || true
case "$cmd" in
aa)
	for ((i = 1; i <= ${1:-10}; i++)); do
		gate "$(printf 'aa-%02d' "$i")"
	done
	;;
hog)
	for n in "$@"; do
		gate "hog-nice$n" \
			RDMA_BENCH_GATE_CANDIDATE_BEFORE="nice -n $n bash -c 'while :; do :; done' >/dev/null 2>&1 & echo \$! >/tmp/gate-proof-hog.pid" \
			RDMA_BENCH_GATE_CANDIDATE_AFTER='kill $(cat /tmp/gate-proof-hog.pid)'
	done
	;;
txdepth)
	for t in "$@"; do
		gate "tx-$t" RDMA_BENCH_GATE_CANDIDATE_FLAGS="-t $t" RDMA_BENCH_GATE_COMPARE_FLAGS="--ignore-param tx_depth --ignore-param cq_mod"
	done
	;;
netem)
	for d in "$@"; do
		gate "netem-${d}us" RDMA_BENCH_PROOF_DELAY_US="$d"
	done
	;;
--netem-guest)
	netem_guest "$1"
	;;
summary)
	for d in "$out"/*/; do
		[ -f "$d/exit" ] && summary_line "$(basename "$d")"
	done
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
