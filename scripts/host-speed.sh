#!/usr/bin/env bash
# scripts/host-speed.sh: is this machine's CPU speed steady? A diagnostic,
# not a gate. It times a fixed integer loop (BLOCK million iterations, default
# 100) COUNT times (default 40) on one CPU (CPU, default 0), and prints each
# block's milliseconds with the steal time /proc/stat counted meanwhile, then
# the fastest and slowest block and their ratio.
#
# On the machine this project was built on, the loop ran at two speeds about
# 1.7 times apart (90 ms and 53 ms blocks), switching within a second, with no
# steal counted: the platform under the machine changes speed by itself. Any
# A-B benchmark on such a machine (bench-vs-perftest, the TCP baseline) sees
# runs land in either level; compare its ratios with that in mind.
set -euo pipefail

block=${BLOCK:-100}
count=${COUNT:-40}
cpu=${CPU:-0}
for v in block count; do
	if ! [[ ${!v} =~ ^[0-9]+$ ]] || ((${!v} == 0)); then
		echo "host-speed: ${v^^}=${!v}: must be a whole number above 0" >&2
		exit 2
	fi
done
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
cat >"$dir/loop.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

// steal returns the steal ticks /proc/stat counts over all CPUs.
static unsigned long long steal(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[7] = 0;
	fclose(f);
	return v[7];
}

int main(int argc, char **argv)
{
	uint64_t n = strtoull(argv[1], NULL, 10) * 1000000ULL;
	int count = atoi(argv[2]);
	volatile uint64_t x = 0;
	for (int r = 0; r < count; r++) {
		unsigned long long s = steal();
		double t = now();
		for (uint64_t i = 0; i < n; i++)
			x += i * i;
		printf("%.1f %llu\n", (now() - t) * 1e3, steal() - s);
		fflush(stdout);
	}
	return argc < 3;
}
EOF
gcc -O1 -o "$dir/loop" "$dir/loop.c"
echo "host-speed: $count blocks of $block M iterations on CPU $cpu: ms/steal-ticks per block"
taskset -c "$cpu" "$dir/loop" "$block" "$count" | awk '
	{ printf "%s/%s ", $1, $2; ms[NR] = $1 }
	END {
		lo = hi = ms[1]
		for (i = 2; i <= NR; i++) { if (ms[i] < lo) lo = ms[i]; if (ms[i] > hi) hi = ms[i] }
		printf "\nhost-speed: fastest %.1f ms, slowest %.1f ms, slowest/fastest %.2f\n", lo, hi, hi / lo
	}'
