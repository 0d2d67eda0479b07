package display

// A Column is a figure column of the run tables: its header, its
// decimals, and the percentile it is (0 for none), which can be thin.
// The terminal table of run and suite and the HTML report's tables take
// their figure columns from here, so a figure has one header and one
// precision in both.
type Column struct {
	Header string
	Prec   int
	Q      float64
}

// Cell writes v, a figure from n samples, in the column: with its
// decimals ([Figure]), marked when it is a percentile n cannot resolve
// ([Percentile]).
func (c Column) Cell(v float64, n int64) string {
	if c.Q > 0 {
		return Percentile(v, c.Q, n, c.Prec)
	}
	return Figure(v, c.Prec)
}

// The latency columns, perftest's headers, in microseconds, and the
// order the tables show them in.
var (
	LatMin    = Column{"t_min[usec]", 3, 0}
	LatP50    = Column{"t_typical(p50)[usec]", 3, 0}
	LatP90    = Column{"t_p90[usec]", 3, 90}
	LatP99    = Column{"t_p99[usec]", 3, 99}
	LatP99_9  = Column{"t_p99.9[usec]", 3, 99.9}
	LatP99_99 = Column{"t_p99.99[usec]", 3, 99.99}
	LatMax    = Column{"t_max[usec]", 3, 0}
	LatAvg    = Column{"t_avg[usec]", 4, 0}
	LatStdev  = Column{"t_stdev[usec]", 4, 0}

	LatencyColumns = []Column{LatMin, LatP50, LatP90, LatP99, LatP99_9, LatP99_99, LatMax, LatAvg, LatStdev}
)

// The bandwidth columns: perftest's Gb/s (--report_gbits) and MiB/s, and
// the message rate.
var (
	BWPeak    = Column{"BW peak[Gb/s]", 2, 0}
	BWAverage = Column{"BW average[Gb/s]", 2, 0}
	BWMiB     = Column{"BW average[MiB/s]", 2, 0}
	MsgRate   = Column{"MsgRate[Mpps]", 4, 0}
)

// The CPU columns: a side's share of one core, and CPU time per
// operation and per GB moved (of both sides, or of one: the terminal
// table's local and remote columns take these decimals).
var (
	CPUCore = Column{"cpu[%core]", 1, 0}
	CPUOp   = Column{"cpu/op[usec]", 2, 0}
	CPUGB   = Column{"cpu/GB[s]", 4, 0}
)

// LatPercentiles are the latency columns that are percentiles, in order.
func LatPercentiles() []Column {
	var out []Column
	for _, c := range LatencyColumns {
		if c.Q > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Headers are the columns' headers, in order.
func Headers(cs ...Column) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Header
	}
	return out
}
