// speed-probe: times a fixed integer loop, for scripts/host-speed.sh and
// scripts/diag-levels.sh. A diagnostic, not part of rdma-bench.
//
// usage: speed-probe MILLIONS COUNT [GAP_MS]
// Runs COUNT blocks (0: until killed) of MILLIONS million iterations, with
// GAP_MS milliseconds of sleep after each, and prints one line per block:
// the CLOCK_REALTIME seconds at its end, its length in ms, and the steal
// ticks /proc/stat counted over all CPUs meanwhile.
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

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

// whole parses a whole number from min to max, or returns -1.
static long whole(const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);
	return (end == s || *end || v < min || v > max) ? -1 : v;
}

int main(int argc, char **argv)
{
	long millions = argc > 1 ? whole(argv[1], 1, 100000) : -1;
	long count = argc > 2 ? whole(argv[2], 0, 1000000) : -1;
	long gap = argc > 3 ? whole(argv[3], 0, 60000) : 0;
	if (argc < 3 || argc > 4 || millions < 0 || count < 0 || gap < 0) {
		fprintf(stderr, "usage: speed-probe MILLIONS COUNT [GAP_MS]: MILLIONS 1-100000, COUNT 0-1000000 (0: until killed), GAP_MS 0-60000\n");
		return 2;
	}
	uint64_t n = (uint64_t)millions * 1000000ULL;
	struct timespec pause = { gap / 1000, (gap % 1000) * 1000000L };
	volatile uint64_t x = 0;
	for (long r = 0; count == 0 || r < count; r++) {
		unsigned long long s = steal();
		double t = now(CLOCK_MONOTONIC);
		for (uint64_t i = 0; i < n; i++)
			x += i * i;
		double ms = (now(CLOCK_MONOTONIC) - t) * 1e3;
		printf("%.6f %.3f %llu\n", now(CLOCK_REALTIME), ms, steal() - s);
		fflush(stdout);
		if (gap > 0)
			nanosleep(&pause, NULL);
	}
	return 0;
}
