// Package report turns the plain results of benchmark runs into statistics
// and output documents (table, JSON, CSV and HdrHistogram text).
//
// The package knows nothing of RDMA verbs: the engine fills a [Result] per
// measured point (one message size of a sweep, for instance) and hands a
// [Document] holding all of them to an [Encoder].
//
// Statistics are designed to avoid the known faults of older tools:
//
//   - mean and standard deviation are float64 (sub-nanosecond jitter does not
//     read 0), the deviation is the population one, computed stably;
//   - the reported max is the largest sample, not the second largest;
//   - percentiles use the nearest-rank definition (see [Summarize]), so
//     p99.9 of 1000 samples is the 999th smallest sample, not the max;
//   - CPU usage counts user, nice, system, irq, softirq and steal time as
//     busy (see [ParseProcStat]);
//   - a sweep produces one JSON document holding every size.
package report
