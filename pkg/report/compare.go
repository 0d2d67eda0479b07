package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// TCPCounterpart names the TCP baseline of a workload's kind.
func TCPCounterpart(k Kind) string {
	if k == Latency {
		return "tcp_lat"
	}
	return "tcp_bw"
}

// WriteComparison prints every RDMA result of doc next to the TCP result
// of the same kind and size: latency percentiles, bandwidth and CPU cost,
// with the ratio RDMA/TCP. It is the table of `rdma-bench suite`.
func WriteComparison(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	ew := &errWriter{w: w}
	writeTableHeader(ew, doc)
	tcp := map[string]*Result{}
	for _, r := range doc.Results {
		if r.Transport == "TCP" {
			tcp[r.Workload+"/"+strconv.Itoa(r.SizeBytes)] = r
		}
	}
	var lat, bw [][]string
	for _, r := range doc.Results {
		if r.Transport == "TCP" {
			continue
		}
		base := tcp[TCPCounterpart(r.Kind)+"/"+strconv.Itoa(r.SizeBytes)]
		if r.Kind == Latency {
			lat = append(lat, latencyComparison(r, base))
		} else {
			bw = append(bw, bandwidthComparison(r, base))
		}
	}
	if len(lat) > 0 {
		ew.printf("\nlatency: RDMA against TCP (tcp_lat), half round trip for write/send, full for read\n")
		if err := renderComparison(ew, []any{"#bytes", "workload", "p50[usec]", "p99[usec]", "p99.9[usec]",
			"tcp p50[usec]", "tcp p99[usec]", "p50 ratio rdma/tcp", "cpu/op[usec]", "tcp cpu/op[usec]"}, lat); err != nil {
			return err
		}
	}
	if len(bw) > 0 {
		ew.printf("\nbandwidth: RDMA against TCP (tcp_bw); cpu/GB adds both sides' process CPU\n")
		if err := renderComparison(ew, []any{"#bytes", "workload", "BW[Gb/s]", "MsgRate[Mpps]", "tcp BW[Gb/s]",
			"BW ratio rdma/tcp", "cpu/GB[s]", "tcp cpu/GB[s]", "cpu/GB ratio rdma/tcp"}, bw); err != nil {
			return err
		}
	}
	if ew.err != nil {
		return fmt.Errorf("writing comparison: %w", ew.err)
	}
	return nil
}

func renderComparison(w io.Writer, header []any, rows [][]string) error {
	tbl := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignRight),
		tablewriter.WithRowAlignment(tw.AlignRight),
	)
	tbl.Header(header...)
	for _, r := range rows {
		if err := tbl.Append(r); err != nil {
			return fmt.Errorf("writing comparison: %w", err)
		}
	}
	if err := tbl.Render(); err != nil {
		return fmt.Errorf("writing comparison: %w", err)
	}
	return nil
}

// num formats v, or "-" when unknown.
func num(v float64, ok bool, prec int) string {
	if !ok {
		return "-"
	}
	return fixed(v, prec)
}

func ratio(a, b float64, ok bool) string {
	if !ok || b == 0 {
		return "-"
	}
	return fixed(a/b, 2)
}

func latencyComparison(r, base *Result) []string {
	s := Summarize(r).Latency
	row := []string{strconv.Itoa(r.SizeBytes), r.Workload, "-", "-", "-", "-", "-", "-", "-", "-"}
	if s != nil {
		row[2], row[3], row[4] = fixed(s.P50US(), 3), fixed(s.P99US(), 3), fixed(s.P99_9US(), 3)
	}
	row[8] = cpuPerOp(r)
	if base == nil {
		return row
	}
	b := Summarize(base).Latency
	if b != nil {
		row[5], row[6] = fixed(b.P50US(), 3), fixed(b.P99US(), 3)
		row[7] = ratio(s.P50NS, b.P50NS, s != nil)
	}
	row[9] = cpuPerOp(base)
	return row
}

func bandwidthComparison(r, base *Result) []string {
	s := Summarize(r).Bandwidth
	row := []string{strconv.Itoa(r.SizeBytes), r.Workload, "-", "-", "-", "-", "-", "-", "-"}
	if s != nil {
		row[2], row[3] = fixed(s.BwGbps, 3), fixed(s.MsgRateMpps, 4)
	}
	cpu, cok := cpuPerGB(r)
	row[6] = num(cpu, cok, 3)
	if base == nil {
		return row
	}
	if b := Summarize(base).Bandwidth; b != nil {
		row[4] = fixed(b.BwGbps, 3)
		row[5] = ratio(s.BwGbps, b.BwGbps, s != nil)
	}
	tcpu, tok := cpuPerGB(base)
	row[7] = num(tcpu, tok, 3)
	row[8] = ratio(cpu, tcpu, cok && tok)
	return row
}

// cpuPerGB is both sides' process CPU seconds per GB moved (one process in
// loopback runs, marked by Extra["loopback"]).
func cpuPerGB(r *Result) (float64, bool) {
	if r.CPU.Local == nil || r.Bytes == 0 {
		return 0, false
	}
	secs := r.CPU.Local.CPUSeconds()
	// In loopback both sides are one process: Local already holds both.
	if rem := remoteCPU(r); rem != nil && r.Extra["loopback"] != "true" {
		secs += rem.CPUSeconds()
	}
	return secs / (float64(r.Bytes) / 1e9), true
}

func cpuPerOp(r *Result) string {
	if r.CPU.Local == nil || r.Ops == 0 {
		return "-"
	}
	return fixed(r.CPU.Local.CPUSeconds()*1e6/float64(r.Ops), 2)
}

// remoteCPU is the peer's usage, from CPU.Remote or the server's figures.
func remoteCPU(r *Result) *CPUUsage {
	if r.CPU.Remote != nil {
		return r.CPU.Remote
	}
	if r.Server != nil {
		return r.Server.CPU.Local
	}
	return nil
}
