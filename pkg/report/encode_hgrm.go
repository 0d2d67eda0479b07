package report

import (
	"fmt"
	"io"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// hgrmEncoder writes the HdrHistogram percentile distribution of every
// latency result, values in microseconds, each after "#" comment lines
// naming the result and giving its exact figures when known. Plotters
// skip "#" lines; one that reads a single distribution per file needs the
// output split at the "# workload=" lines.
type hgrmEncoder struct{}

// hgrmTicksPerHalfDistance is the percentile reporting resolution, the
// HdrHistogram default for .hgrm files.
const hgrmTicksPerHalfDistance = 5

// Encode implements [Encoder].
func (hgrmEncoder) Encode(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	ew := &display.ErrWriter{W: w}
	n := 0
	for _, r := range validResults(doc) {
		h, outOfRange, source := latencyHistogram(r)
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		if n > 0 {
			ew.Printf("\n")
		}
		n++
		ew.Printf("# workload=%s transport=%s completion=%s size_bytes=%d rate=%d runs=%d started_at=%s samples=%d out_of_range=%d source=%s unit=us\n",
			orDash(r.Workload), orDash(r.Transport), orDash(r.Completion), r.SizeBytes, r.Rate, max(1, len(r.Runs)),
			doc.StartedAt.UTC().Format(time.RFC3339), h.TotalCount(), outOfRange, source)
		if r.Status != "" && r.Status != StatusOK {
			ew.Printf("# %s: %s\n", r.Status, r.Reason)
		}
		name := fmt.Sprintf("%s %d bytes", orDash(r.Workload), r.SizeBytes)
		if display.Unclean(cleanOf(r)) {
			ew.Printf("# %s; counters: %s\n", display.UncleanNoteFor(name, cleanOf(r)), r.Counters.Verdict)
		}
		for _, x := range document.FailedExpectations(r.Expectations) {
			ew.Printf("# expect: %s\n", x)
		}
		l := Summarize(r).Latency
		if note := display.ThinNoteFor(name, h.TotalCount(), 99, 99.9, 99.99); note != "" {
			ew.Printf("# %s\n", note)
		}
		if l.AtTick() {
			ew.Printf("# warning: %s\n", display.TickWarning)
		}
		if l != nil && (l.Exact || (r.Moments != nil && r.Moments.Count > 0)) {
			ew.Printf("# exact: min=%s max=%s mean=%s stdev=%s us (the #[...] footer is at histogram precision)\n",
				exact(l.MinUS()), exact(l.MaxUS()), exact(l.MeanUS()), exact(l.StdevUS()))
		}
		if _, err := h.PercentilesPrint(ew, hgrmTicksPerHalfDistance, 1e3); err != nil {
			return fmt.Errorf("encode hgrm: %w", err)
		}
	}
	if n == 0 {
		ew.Printf("# no latency results\n")
	}
	if ew.Err != nil {
		return fmt.Errorf("encode hgrm: %w", ew.Err)
	}
	return nil
}

// latencyHistogram returns r's latency as a histogram in ns (built from
// SamplesNS when present), the samples it could not hold, and where it came
// from; nil when r has no latency data.
func latencyHistogram(r *Result) (h *hdrhistogram.Histogram, outOfRange int64, source string) {
	switch {
	case len(r.SamplesNS) > 0:
		rec := NewLatencyRecorder()
		rec.RecordChunk(r.SamplesNS)
		return rec.h(), rec.OutOfRange(), "samples"
	case r.Hist != nil:
		return r.Hist, r.OutOfRange, "histogram"
	}
	return nil, 0, ""
}
