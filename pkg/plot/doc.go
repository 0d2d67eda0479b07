// Package plot draws rdma-bench's results as pictures and bundles them into
// a self-contained HTML report.
//
// The charts are the ones fabric engineers read: latency percentiles and
// rates against message size on log axes, CPU cost per gigabyte, the
// HdrHistogram percentile spectrum, a baseline-against-candidate comparison
// as whiskers, a trend across firmware versions and a host-pair heat map.
// Every chart carries a caption (device, firmware, host, date, tool) so a
// picture pasted into a bug report stands alone, draws TCP dashed and RDMA
// solid so the two read apart in grey-scale too, and keeps its legend
// outside the data.
//
// The package works on plain inputs (series of sizes and values); turning
// saved JSON documents into these inputs is the caller's job. Drawing is
// pure Go (gonum.org/v1/plot) and needs no browser, network or cgo. WriteAll
// puts charts' SVG and PNG into a directory atomically; WriteHTMLFile
// writes one HTML file with inline SVG and CSS and no script.
package plot
