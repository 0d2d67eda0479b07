// Package compare decides whether a new set of benchmark results is slower,
// faster or the same as a base set, and gates CI on the answer.
//
// It works on abstract inputs: a [Series] holds, for one benchmark point
// (a label such as "write_lat RC poll 64 B") and one [metric.Metric], the value of
// every repetition on each side. [Compare] turns a Series into a [Row] of
// evidence and a [Verdict]; [Gate] checks rows against [Threshold]s and gives
// the process exit code; [WriteTable], [WriteMarkdown], [WriteJSON] and
// [WriteJUnit] render a [Comparison].
//
// The statistics follow the tools engineers already trust:
//
//   - like benchstat (golang.org/x/perf/benchmath), each side is summarised by
//     its median with a distribution-free confidence interval (order
//     statistics of the binomial distribution), and the two sides are
//     compared with the two-sided Mann-Whitney U test; both come from
//     benchmath itself;
//   - like criterion, a change counts as a regression or an improvement only
//     when it is significant AND its whole confidence interval lies outside a
//     noise band;
//   - like Chromium Pinpoint, a comparison that cannot decide says so
//     ([Inconclusive]) and estimates how many runs would decide it.
//
// What benchmath lacks, and this package adds, is a confidence interval for
// the change itself; see [ShiftInterval] for the method (the Hodges-Lehmann
// shift of the log values, bounded by Mann-Whitney order statistics).
package compare
