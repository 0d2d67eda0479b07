#!/usr/bin/env bash
# Where the time of a 2 B RDMA WRITE goes: perf samples every CPU (cpu-clock,
# no hardware counters needed) while `rdma-bench run write_bw -s 2` streams
# between a server and a client process, then sorts the samples into user
# space (rdma-bench's loop and Go), the rdma-core libraries (libibverbs and
# the provider, e.g. librxe), the kernel's verbs entry (the doorbell system
# call: uverbs), the driver (rxe_* for soft-RoCE), the rest of the kernel
# (network stack, scheduler, idle) and other processes.
#
# usage: scripts/diag/profile-msgrate.sh [SECONDS] [extra run flags]   (SECONDS: -D, default 8)
# Needs perf (Debian: linux-perf) and an RDMA device: run it inside the VM
# where the host has none: vm/run.sh -- scripts/diag/profile-msgrate.sh
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
secs=${1:-8}
shift || true
bin=${RDMA_BENCH_BIN:-./rdma-bench}
command -v perf >/dev/null || { echo "profile-msgrate: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
dev=(-d "$(ls /sys/class/infiniband | head -n 1)")
[ "${RDMA_BENCH_IN_VM:-}" != 1 ] || dev+=(-x 1)
host=${RDMA_BENCH_VM_ADDR:-127.0.0.1}
tmp=$(mktemp -d)
trap 'kill "${srv:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null || true
echo -1 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null || true

"$bin" server "${dev[@]}" -p 19999 >"$tmp/server.log" 2>&1 &
srv=$!
sleep 1
# perf samples every CPU for the client's whole run; the timed part (-D)
# is most of it.
perf record -q -a -e cpu-clock -F 999 -o "$tmp/perf.data" -- \
	"$bin" run write_bw "$host" "${dev[@]}" -p 19999 -s 2 -D "$secs" "$@" -o csv --output-file "$tmp/run.csv" 2>"$tmp/client.log"
wait "$srv" || true
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "message rate %.4f Mpps (%s)\n", $c["msg_rate_mpps"], $c["workload"] }' "$tmp/run.csv"

# comm, dso, symbol, percentage of all samples on all CPUs.
perf report -i "$tmp/perf.data" --stdio --no-children --sort comm,dso,sym -F overhead,comm,dso,sym 2>/dev/null |
	awk '/^ *[0-9.]+%/ { p = $1; sub(/%/, "", p); comm = $2; dso = $3; sym = $NF; print p, comm, dso, sym }' >"$tmp/rows"
awk '
function cat(comm, dso, sym) {
	if (dso ~ /librxe|libmlx|libirdma|libbnxt|libhns|libefa|libqedr|libsiw|libvmw|libcxgb|libocrdma|libmthca|libmlx4|libhfi/) return "provider (rdma-core driver library)"
	if (dso ~ /libibverbs/) return "libibverbs"
	if (dso ~ /rdma-bench/) return "rdma-bench (its C loop and Go)"
	if (dso ~ /kernel/) {
		if (sym ~ /^rxe_|^rxe/) return "kernel: rxe (soft-RoCE driver)"
		if (sym ~ /uverbs|ib_uverbs|^ib_/) return "kernel: uverbs (the doorbell system call)"
		if (sym ~ /idle|halt|cpuidle|poll_idle|default_idle/) return "kernel: idle"
		return "kernel: other (syscall entry, net stack, scheduler)"
	}
	if (dso ~ /libc|ld-linux|vdso/) return "libc and vDSO"
	return "other"
}
{ s[cat($2, $3, $4)] += $1; t += $1 }
END { for (k in s) printf "%6.1f%%  %s\n", s[k], k; printf "%6.1f%%  total\n", t }' "$tmp/rows" | sort -rn
echo "top symbols:"
sort -rn "$tmp/rows" | head -n 15 | awk '{ printf "%6.2f%%  %-12s %-24s %s\n", $1, $2, $3, $4 }'
