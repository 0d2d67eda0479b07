package display

// A Column is a figure column of the run tables: its header and its
// decimals. The terminal table of run and suite and the HTML report's
// tables take their figure columns from here, so a figure has one header
// and one precision in both.
type Column struct {
	Header string
	Prec   int
}

// Cell writes v in the column (see [Figure]).
func (c Column) Cell(v float64) string { return Figure(v, c.Prec) }

// The latency columns, perftest's headers: microseconds.
var (
	LatMin    = Column{"t_min[usec]", 3}
	LatP50    = Column{"t_typical(p50)[usec]", 3}
	LatP90    = Column{"t_p90[usec]", 3}
	LatP99    = Column{"t_p99[usec]", 3}
	LatP99_9  = Column{"t_p99.9[usec]", 3}
	LatP99_99 = Column{"t_p99.99[usec]", 3}
	LatMax    = Column{"t_max[usec]", 3}
	LatAvg    = Column{"t_avg[usec]", 4}
	LatStdev  = Column{"t_stdev[usec]", 4}
)

// LatPercentiles are the percentile columns and their percentiles, in
// the tables' order: the ones that can be thin (see [Thin]).
var LatPercentiles = []struct {
	Column
	Q float64
}{{LatP90, 90}, {LatP99, 99}, {LatP99_9, 99.9}, {LatP99_99, 99.99}}

// The bandwidth columns: perftest's Gb/s (--report_gbits) and MiB/s, and
// the message rate.
var (
	BWPeak    = Column{"BW peak[Gb/s]", 2}
	BWAverage = Column{"BW average[Gb/s]", 2}
	BWMiB     = Column{"BW average[MiB/s]", 2}
	MsgRate   = Column{"MsgRate[Mpps]", 4}
)

// The CPU columns: a side's share of one core, and CPU time per
// operation and per GB moved.
var (
	CPUOp = Column{"cpu/op[usec]", 2}
	CPUGB = Column{"cpu/GB[s]", 4}
)

// CPUCorePrec is the decimals of cpu_local[%core] and cpu_remote[%core].
const CPUCorePrec = 1
