package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteSamples writes every latency sample of doc, one per line, as CSV:
// workload, transport, size_bytes, rate_ops (0 for a closed loop), run
// (1-based, --repeat) and latency_ns, in the order measured. A run's
// samples are its raw ones (iteration mode) or, in duration mode, those
// kept beside its histogram (RawNS). Bandwidth results have none.
func WriteSamples(w io.Writer, doc *Document) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString("workload,transport,size_bytes,rate_ops,run,latency_ns\n"); err != nil {
		return fmt.Errorf("writing samples: %w", err)
	}
	var line []byte
	for _, r := range validResults(doc) {
		runs := r.Runs
		if len(runs) == 0 {
			runs = []*Result{r}
		}
		for i, run := range runs {
			samples := run.SamplesNS
			if len(samples) == 0 {
				samples = run.RawNS
			}
			prefix := fmt.Sprintf("%s,%s,%d,%d,%d,", r.Workload, r.Transport, r.SizeBytes, r.Rate, i+1)
			for _, v := range samples {
				line = append(append(line[:0], prefix...), strconv.FormatInt(v, 10)...)
				line = append(line, '\n')
				if _, err := bw.Write(line); err != nil {
					return fmt.Errorf("writing samples: %w", err)
				}
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing samples: %w", err)
	}
	return nil
}
