// Package results reads the JSON documents rdma-bench saves and turns them
// into the inputs of the comparison (pkg/compare) and of the charts
// (pkg/plot).
//
// [Load] reads documents from files, directories and glob patterns and
// refuses bad input with the file and the field named. [SelectLabel] picks
// one side of a comparison by the documents' labels. [Pool] gathers the
// runs of every point of one side, pooled over its documents; [Match]
// pairs the points of two sides, refusing points that differ in a
// measured parameter; [Matching.Series] gives one compare.Series per point
// and metric, and [MetaDiff] the metadata that differs between the sides.
// For charts, [Groups] splits documents by label; [LatencySeries],
// [RateSeries], [CPUPerGBSeries], [Spectra], [LoadCharts], [Trends],
// [Whiskers] and [CaptionOf] build the inputs of pkg/plot's charts,
// [Charts] and [ComparisonCharts] draw them, and [LatencyTable],
// [BandwidthTable], [LoadTable] and [ComparisonTable] tabulate the figures
// for a report. Points that differ only in their offered rate (params
// rate, an open-loop run) are kept apart: the latency-against-size chart
// draws the closed loop, [LoadCharts] the rates.
//
// The schema read is docs/json.md's (schema_version 2). A document from
// before the per-run figures (no "runs" key) is read as one run per point,
// its figures those of the result.
package results
