// Choosing and calibrating the measuring clock (see clock.h).
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include "clock.h"

struct rb_tsc rb_tsc;
#ifdef RB_SLOWDOWN
int64_t rb_slowdown_ns[2];
#ifdef RB_SLOWDOWN
int64_t rb_drop_after;
#endif
#endif

// A vDSO clock_gettime costs 20-60 ns; a trapped one (system call, or a
// hypervisor exit) costs several hundred. Above this, AUTO tries the TSC.
#define SLOW_CLOCK_PS 150000
// Calibration: two windows whose rates must agree within RATE_TOLERANCE.
#define WINDOW_NS 40000000LL
#define RATE_TOLERANCE 1e-4
#define BRACKET_TRIES 9

int64_t rb_clock_cost_ps(uint64_t n)
{
	int64_t *buf = malloc(sizeof(int64_t) * 1024);
	if (!buf || n == 0) {
		free(buf);
		return -1;
	}
	int64_t t0 = rb_mono_ns();
	for (uint64_t i = 0; i < n; i++)
		buf[i & 1023] = rb_now_ns();
	int64_t t1 = rb_mono_ns();
	volatile int64_t sink = buf[(n - 1) & 1023];
	(void)sink;
	free(buf);
	return (t1 - t0) * 1000 / (int64_t)n;
}

// mono_cost_ps is the cheapest of a few averages of 256 clock_gettime calls.
static int64_t mono_cost_ps(void)
{
	int64_t best = INT64_MAX;
	for (int k = 0; k < 5; k++) {
		int64_t t0 = rb_mono_ns(), t1 = t0;
		for (int i = 0; i < 256; i++)
			t1 = rb_mono_ns();
		if ((t1 - t0) * 1000 / 256 < best)
			best = (t1 - t0) * 1000 / 256;
	}
	return best;
}

#if defined(__x86_64__)
// bracket reads CLOCK_MONOTONIC_RAW between two rdtscp on one CPU and
// returns the pair with the narrowest bracket of a few tries: *tsc is the
// bracket's midpoint. It returns the CPU, or -1 if every try migrated.
static int bracket(uint64_t *tsc, int64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int cpu = -1;
	for (int k = 0; k < BRACKET_TRIES; k++) {
		uint32_t c1, c2;
		uint64_t a = rb_rdtscp(&c1);
		int64_t t = rb_mono_ns();
		uint64_t b = rb_rdtscp(&c2);
		if (c1 != c2 || b < a || b - a >= best)
			continue;
		best = b - a;
		*tsc = a + (b - a) / 2;
		*ns = t;
		cpu = (int)c1;
	}
	return cpu;
}

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };
	while (nanosleep(&ts, &ts) != 0)
		;
}

// calibrate fills rb_tsc (leaving it off) or writes why it cannot.
static int calibrate(char *why, int len)
{
	unsigned int a, b, c, d;
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(d & (1u << 27))) {
		snprintf(why, len, "the CPU has no rdtscp");
		return -1;
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		snprintf(why, len, "sched_getaffinity failed");
		return -1;
	}
	int ref = -1;
	for (int i = 0; i < CPU_SETSIZE && i < RB_CLOCK_MAX_CPUS && ref < 0; i++)
		if (CPU_ISSET(i, &allowed))
			ref = i;
	int rc = -1;
	uint64_t t[3];
	int64_t n[3];
	if (ref < 0 || pin(ref)) {
		snprintf(why, len, "cannot pin the calibrating thread");
		goto out;
	}
	// Rate: ticks per ns over two windows, which must agree.
	for (int w = 0; w < 3; w++) {
		if (w)
			sleep_ns(WINDOW_NS);
		if (bracket(&t[w], &n[w]) != ref) {
			snprintf(why, len, "rdtscp does not report CPU %d (TSC_AUX not set by the kernel)", ref);
			goto out;
		}
	}
	double r1 = (double)(n[1] - n[0]) / (double)(t[1] - t[0]);
	double r2 = (double)(n[2] - n[1]) / (double)(t[2] - t[1]);
	if (t[1] <= t[0] || t[2] <= t[1] || r1 <= 0 || (r1 > r2 ? r1 - r2 : r2 - r1) > RATE_TOLERANCE * r1) {
		snprintf(why, len, "the TSC rate is unstable (%.6f then %.6f ns per tick)", r1, r2);
		goto out;
	}
	double rate = (double)(n[2] - n[0]) / (double)(t[2] - t[0]);
	memset(&rb_tsc, 0, sizeof(rb_tsc));
	rb_tsc.mult = (uint64_t)(rate * 4294967296.0);
	rb_tsc.base_tsc = t[2];
	rb_tsc.base_ns = n[2];
	rb_tsc.ok[ref] = 1;
	// Offsets: where each CPU's TSC stands against the reference's scale.
	for (int i = ref + 1; i < CPU_SETSIZE && i < RB_CLOCK_MAX_CPUS; i++) {
		if (!CPU_ISSET(i, &allowed))
			continue;
		uint64_t tc;
		int64_t nc;
		if (pin(i) || bracket(&tc, &nc) != i) {
			snprintf(why, len, "rdtscp does not report CPU %d", i);
			goto out;
		}
		double expect = (double)rb_tsc.base_tsc + (double)(nc - rb_tsc.base_ns) / rate;
		rb_tsc.off[i] = (int64_t)((double)tc - expect);
		rb_tsc.ok[i] = 1;
	}
	rc = 0;
out:
	sched_setaffinity(0, sizeof(allowed), &allowed);
	return rc;
}
#endif

int rb_clock_init(int mode, char *why, int len)
{
	why[0] = 0;
	__atomic_store_n(&rb_tsc.on, 0, __ATOMIC_RELEASE);
	if (mode == RB_CLOCK_MONO) {
		snprintf(why, len, "requested");
		return RB_CLOCK_MONO;
	}
	int64_t cost = mono_cost_ps();
	if (mode == RB_CLOCK_AUTO && cost < SLOW_CLOCK_PS) {
		snprintf(why, len, "clock_gettime costs %.0f ns (vDSO)", cost / 1000.0);
		return RB_CLOCK_MONO;
	}
#if defined(__x86_64__)
	char reason[160];
	if (calibrate(reason, sizeof(reason))) {
		snprintf(why, len, "TSC refused: %s", reason);
		return RB_CLOCK_MONO;
	}
	__atomic_store_n(&rb_tsc.on, 1, __ATOMIC_RELEASE);
	snprintf(why, len, "clock_gettime costs %.0f ns; TSC at %.3f MHz, calibrated against it", cost / 1000.0,
		 4294967296.0 / (double)rb_tsc.mult * 1000.0);
	return RB_CLOCK_TSC;
#else
	snprintf(why, len, "no TSC on this architecture");
	return RB_CLOCK_MONO;
#endif
}
