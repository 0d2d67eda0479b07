package results

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// DecodeHistogram decodes a histogram as documents hold it: HdrHistogram's
// V2 compressed encoding, base64, values in nanoseconds.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("not HdrHistogram's base64 V2 compressed encoding: %w", err)
	}
	return h, nil
}

// Histogram returns the point's latency histogram merged over its
// results: each result's own, or when it has none the merge of its runs'.
// It is nil when a result has neither (a document from before
// histograms). An undecodable histogram is an error naming its file.
func (p *Point) Histogram() (*hdrhistogram.Histogram, error) {
	var merged *hdrhistogram.Histogram
	add := func(d *document.Document, r *document.Result, field, enc string, samples int64) error {
		h, err := DecodeHistogram(enc)
		if err != nil {
			return fmt.Errorf("%s: results[%d] (%s).%s: %w", d.Path, r.Index, Describe(p.Key, nil), field, err)
		}
		if h.TotalCount() == 0 && samples > 0 {
			return fmt.Errorf("%s: results[%d] (%s).%s holds no sample, where samples says %d: want the samples' histogram", d.Path, r.Index, Describe(p.Key, nil), field, samples)
		}
		if merged == nil {
			merged = h
		} else if dropped := merged.Merge(h); dropped > 0 {
			return fmt.Errorf("%s: results[%d] (%s).%s: %d values outside the range of the other histograms", d.Path, r.Index, Describe(p.Key, nil), field, dropped)
		}
		return nil
	}
	for i, r := range p.Results {
		d := p.Docs[i]
		if r.Histogram != "" {
			if err := add(d, r, "histogram", r.Histogram, r.Samples); err != nil {
				return nil, err
			}
			continue
		}
		if !r.RunsRecorded {
			return nil, nil
		}
		for j, run := range r.Runs {
			if run.Histogram == "" {
				return nil, nil
			}
			if err := add(d, r, fmt.Sprintf("runs[%d].histogram", j), run.Histogram, run.Samples); err != nil {
				return nil, err
			}
		}
	}
	if merged == nil || merged.TotalCount() == 0 {
		return nil, nil
	}
	return merged, nil
}

// percentilesUS returns the nearest-rank percentiles (0 < p <= 100) of h
// in microseconds, as rdma-bench computes them: the highest value
// equivalent to the sample of rank ceil(n p / 100).
func percentilesUS(h *hdrhistogram.Histogram, ps []float64) []float64 {
	n := h.TotalCount()
	ranks := make([]int64, len(ps))
	for i, p := range ps {
		ranks[i] = nearestRank(n, int64(math.Round(p*10000)))
	}
	out := make([]float64, len(ps))
	var cum int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		cum += b.Count
		for i, r := range ranks {
			if out[i] == 0 && cum >= r {
				out[i] = float64(b.To) / 1000
			}
		}
	}
	return out
}

// nearestRank is the 1-based rank ceil(n ppm / 10^6), clamped to [1, n].
func nearestRank(n, ppm int64) int64 {
	if n <= 0 {
		return 0
	}
	if ppm >= 1_000_000 {
		return n
	}
	hi, lo := bits.Mul64(uint64(n), uint64(max(ppm, 0)))
	q, rem := bits.Div64(hi, lo, 1_000_000)
	if rem != 0 {
		q++
	}
	return max(1, min(int64(q), n))
}
