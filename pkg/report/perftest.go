package report

import (
	"fmt"
	"io"
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// perftestEncoder writes the results table of perftest 4.5-0.17 (the
// Debian and Ubuntu package), its exact header, column order and
// printf formats, for scripts that parse ib_*_bw and ib_*_lat output by
// position. One table per group of results sharing their parameters (one
// perftest invocation, -a giving a row per size); none of perftest's
// preamble. A figure that could not be measured is "-".
//
// Units are perftest's: MB/sec is 2^20 bytes per second (perftest's
// format_factor 0x100000; newer perftest calls it MiB/sec), Gb/sec 10^9
// bits per second, and latency is in microseconds. t_typical is the
// median. Where the invocation (the document's args) has --report_gbits,
// bandwidth is in Gb/sec, as perftest prints it then.
type perftestEncoder struct{}

// perftest's lines and formats (perftest_parameters.h, v4.5-0.17).
const (
	perftestLine   = "---------------------------------------------------------------------------------------\n"
	perftestBW     = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
	perftestBWG    = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
	perftestLat    = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
	perftestLatDur = " #bytes        #iterations       t_avg[usec]    tps average\n"

	perftestBWRow     = " %-7d    %-10d       %-7s            %-7s\t\t   %-7s\n"
	perftestBWRowExt  = " %-7d    %d           %-7s            %-7s            %-7s\n" // Gb/sec below 0.1
	perftestLatRow    = " %-7d %d          %-7s        %-7s      %-7s  \t       %-7s     \t%-7s\t\t%-7s \t\t%-7s\n"
	perftestLatDurRow = " %-7d       %d            %-7s        %-7s\n"
)

// perftestGbits tells whether the document's invocation asked for
// perftest's --report_gbits.
func perftestGbits(doc *Document) bool {
	for _, a := range doc.Args {
		if a == "--" {
			return false
		}
		if a == "--report_gbits" {
			return true
		}
	}
	return false
}

// Encode implements [Encoder].
func (perftestEncoder) Encode(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	ew := &display.ErrWriter{W: w}
	gbits := perftestGbits(doc)
	for _, g := range groupResults(validResults(doc)) {
		ew.Printf("%s", perftestLine)
		switch {
		case !g.latency:
			ew.Printf("%s", map[bool]string{false: perftestBW, true: perftestBWG}[gbits])
		case g.first.Iterations == 0 && g.first.DurationS > 0:
			ew.Printf("%s", perftestLatDur)
		default:
			ew.Printf("%s", perftestLat)
		}
		for i, r := range g.results {
			perftestRow(ew, g, r, g.sums[i], gbits)
		}
		ew.Printf("%s", perftestLine)
	}
	if ew.Err != nil {
		return fmt.Errorf("encode perftest: %w", ew.Err)
	}
	return nil
}

// Notes implements [Noter]: every caveat of every row printed, in the
// table view's words ([rowNotes], [display.UncleanNoteFor],
// [display.ThinNoteFor]), the row named by its workload and size
// ("partial: write_lat 64 bytes: interrupted: ..."), as the tables have no
// titles.
//
// They go to standard error, not below the tables: scripts read
// perftest's standard output by position (a row per size, its fields
// split on blanks) and expect perftest's bytes there, so any line of ours
// among them could be parsed as a row or break the parser. Standard error
// is where rdma-bench already writes what it says beside its output
// (progress, warnings, a failed expectation's error), so a person at the
// terminal sees the caveats under the tables while a script's pipe on
// standard output gets perftest's bytes only.
func (perftestEncoder) Notes(doc *Document) []string {
	if doc == nil {
		return nil
	}
	var out []string
	for _, g := range groupResults(validResults(doc)) {
		durationTable := g.latency && g.first.Iterations == 0 && g.first.DurationS > 0
		for i, r := range g.results {
			name := orDash(r.Workload) + " " + rowName(g, r)
			s := g.sums[i]
			if n := display.UncleanNoteFor(name, cleanOf(r)); n != "" {
				out = append(out, n)
			}
			if l := s.Latency; l != nil && g.latency && !durationTable {
				// The percentiles perftest's latency table shows.
				if n := display.ThinNoteFor(name, l.Count, 99, 99.9); n != "" {
					out = append(out, n)
				}
			}
			for _, n := range rowNotes(name, r, s) {
				if n.caveat && !(n.percentiles && durationTable) {
					out = append(out, n.text)
				}
			}
		}
	}
	return out
}

// perftestRow writes one row in the format of g's header.
func perftestRow(ew *display.ErrWriter, g *group, r *Result, s Summary, gbits bool) {
	iters := iterationsShown(r, s)
	if !g.latency {
		cells := slices.Repeat([]string{"-"}, 3)
		format := perftestBWRow
		if b := s.Bandwidth; b != nil {
			peak, avg := b.PeakGbps*1e9/8/(1<<20), b.BwMiBps
			if gbits {
				peak, avg = b.PeakGbps, b.BwGbps
			}
			prec := 2
			if gbits && avg < 0.1 {
				prec, format = 6, perftestBWRowExt
			}
			cells = []string{fixed(peak, prec), fixed(avg, prec), fixed(b.MsgRateMpps, 6)}
			if b.PeakGbps == 0 {
				cells[0] = "-" // unknown; perftest's -N prints 0.00
			}
		}
		ew.Printf(format, r.SizeBytes, iters, cells[0], cells[1], cells[2])
		return
	}
	if g.first.Iterations == 0 && g.first.DurationS > 0 {
		cells := []string{"-", "-"}
		if l := s.Latency; l != nil {
			cells[0] = fixed(l.MeanUS(), 2)
		}
		if r.ElapsedNS > 0 {
			cells[1] = fixed(float64(r.Ops)/(float64(r.ElapsedNS)/1e9), 2)
		}
		ew.Printf(perftestLatDurRow, r.SizeBytes, iters, cells[0], cells[1])
		return
	}
	cells := slices.Repeat([]string{"-"}, 7)
	if l := s.Latency; l != nil {
		cells = []string{fixed(l.MinUS(), 2), fixed(l.MaxUS(), 2), fixed(l.P50US(), 2), fixed(l.MeanUS(), 2),
			fixed(l.StdevUS(), 2), fixed(l.P99US(), 2), fixed(l.P99_9US(), 2)}
	}
	ew.Printf(perftestLatRow, r.SizeBytes, iters, cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6])
}
