#!/usr/bin/env bash
# scripts/host-speed.sh: is this machine's CPU speed steady? A diagnostic,
# not a gate. It times a fixed integer loop (BLOCK million iterations, default
# 100) COUNT times (default 40) on one CPU (CPU, default 0), and prints each
# block's milliseconds with the steal time /proc/stat counted meanwhile, then
# the fastest and slowest block and their ratio.
#
# On the machine this project was built on, the loop ran at 35, 53 or 90 ms
# per block, switching within seconds, with no steal counted: the platform
# under the machine changes speed by itself. Benchmarks run on the host (the
# TCP baseline) see runs land in either level. The soft-RoCE VM's own levels
# do not follow this loop's (scripts/diag-levels.sh), though an integer loop
# cannot see contention for the host's caches and memory.
set -euo pipefail

block=${BLOCK:-100}
count=${COUNT:-40}
cpu=${CPU:-0}
if ! [[ $block =~ ^[0-9]{1,6}$ ]] || ((block == 0 || block > 100000)); then
	echo "host-speed: BLOCK=$block: must be a whole number of millions from 1 to 100000" >&2
	exit 2
fi
if ! [[ $count =~ ^[0-9]{1,7}$ ]] || ((count == 0 || count > 1000000)); then
	echo "host-speed: COUNT=$count: must be a whole number from 1 to 1000000" >&2
	exit 2
fi
if ! [[ $cpu =~ ^[0-9]+$ ]]; then
	echo "host-speed: CPU=$cpu: must be a CPU number (0 or more)" >&2
	exit 2
fi
ncpu=$(nproc)
if ((cpu >= ncpu)); then
	echo "host-speed: CPU=$cpu: this machine has CPUs 0-$((ncpu - 1))" >&2
	exit 2
fi
command -v gcc >/dev/null || { echo "host-speed: needs gcc" >&2; exit 2; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gcc -O1 -o "$dir/probe" scripts/diag/speed-probe.c
echo "host-speed: $count blocks of $block M iterations on CPU $cpu: ms/steal-ticks per block"
taskset -c "$cpu" "$dir/probe" "$block" "$count" | awk '
	{ printf "%.1f/%s ", $2, $3; ms[NR] = $2 }
	END {
		lo = hi = ms[1]
		for (i = 2; i <= NR; i++) { if (ms[i] < lo) lo = ms[i]; if (ms[i] > hi) hi = ms[i] }
		printf "\nhost-speed: fastest %.1f ms, slowest %.1f ms, slowest/fastest %.2f\n", lo, hi, hi / lo
	}'
