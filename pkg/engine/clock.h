// The clock of every measured loop (RDMA engine and TCP loops alike), in
// nanoseconds on the CLOCK_MONOTONIC_RAW time line.
//
// Two sources, chosen once per process by rb_clock_init:
//
//   RB_CLOCK_MONO  clock_gettime(CLOCK_MONOTONIC_RAW). Through the vDSO it
//                  costs 20-30 ns, needs no calibration, is immune to NTP
//                  slewing and is comparable across threads and cores. It
//                  is the default wherever the vDSO answers it.
//   RB_CLOCK_TSC   rdtscp, converted with a rate and per-CPU offsets
//                  calibrated against CLOCK_MONOTONIC_RAW at start-up. Used
//                  when the kernel has no vDSO clock (its clocksource is
//                  hpet or acpi_pm, as in a QEMU TCG guest, where each
//                  clock_gettime becomes an ~800 ns system call): that cost
//                  would sit inside every latency sample. rdtscp also
//                  returns the CPU it ran on, so a thread that migrates is
//                  converted with the offset of the CPU it is on.
#ifndef RDMA_BENCH_CLOCK_H
#define RDMA_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

enum rb_clock_mode {
	RB_CLOCK_AUTO = 0, // TSC if the vDSO clock is slow and the TSC calibrates
	RB_CLOCK_MONO = 1,
	RB_CLOCK_TSC = 2,
};

#define RB_CLOCK_MAX_CPUS 4096

struct rb_tsc {
	int on;           // rb_now_ns reads the TSC
	uint64_t mult;    // ns per tick, 32.32 fixed point
	int64_t base_ns;  // CLOCK_MONOTONIC_RAW at tick base_tsc on CPU 0's scale
	uint64_t base_tsc;
	// off[cpu]: that CPU's TSC minus the reference scale, in ticks; valid
	// only where ok[cpu].
	int64_t off[RB_CLOCK_MAX_CPUS];
	uint8_t ok[RB_CLOCK_MAX_CPUS];
};

extern struct rb_tsc rb_tsc;

static inline int64_t rb_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t rb_rdtscp(uint32_t *cpu)
{
	uint32_t lo, hi, aux;
	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	*cpu = aux & 0xfff; // Linux: TSC_AUX = node << 12 | cpu
	return (uint64_t)hi << 32 | lo;
}
#endif

// rb_now_ns reads the clock chosen by rb_clock_init.
static inline int64_t rb_now_ns(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(rb_tsc.on, 0)) {
		uint32_t cpu;
		uint64_t t = rb_rdtscp(&cpu);
		if (__builtin_expect(rb_tsc.ok[cpu], 1)) {
			__int128 d = (__int128)(int64_t)(t - rb_tsc.base_tsc) - rb_tsc.off[cpu];
			return rb_tsc.base_ns + (int64_t)((d * (__int128)rb_tsc.mult) >> 32);
		}
		return rb_mono_ns();
	}
#endif
	return rb_mono_ns();
}

// rb_clock_init chooses and calibrates the clock; call it before any loop
// runs (calibration pins the calling thread to each allowed CPU in turn,
// then restores its affinity). It returns the mode in use and writes a
// reason for a refused or automatic choice into why (len bytes).
int rb_clock_init(int mode, char *why, int len);

// rb_clock_cost_ps is the cost of one sample (timestamp and store) in
// picoseconds, averaged over n samples.
int64_t rb_clock_cost_ps(uint64_t n);

// rb_slowdown spins for ns nanoseconds: the calibrated slowdown of a
// binary built with the rdmabench_slowdown tag (slowdown.go), which exists
// to prove the gate; in every other build it is empty. The latency loops
// spin rb_slowdown_ns[0] before every post or message sent, the bandwidth
// loops rb_slowdown_ns[1] before every post of a work-request list or
// message sent.
#ifdef RB_SLOWDOWN
extern int64_t rb_slowdown_ns[2];
static inline void rb_slowdown(int bw)
{
	int64_t ns = rb_slowdown_ns[bw != 0];
	if (ns > 0) {
		int64_t end = rb_now_ns() + ns;
		while (rb_now_ns() < end)
			;
	}
}
#else
static inline void rb_slowdown(int bw)
{
	(void)bw;
}
#endif

#endif
