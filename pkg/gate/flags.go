package gate

import (
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
)

// DefaultFailOn is the gate's default --fail-on. It differs from compare's
// ([compare.DefaultThresholdSpec], which also gates p99 latency and
// message rate and takes bandwidth to -3%): a gate point measures one
// figure, the median latency or the bandwidth, alternated pair by pair
// within a time budget, and in the soft-RoCE VM bandwidth pairs spread so
// far (docs/gate.md, "The noise, shown") that 3% is out of a 5-minute
// budget's reach; 5% on both keeps the gate able to decide.
const DefaultFailOn = "lat.p50>+5%,bw<-5%"

// Register adds the flags of `rdma-bench gate` to fs, each setting its
// option, with the command's defaults.
func (o *Options) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.BaseBin, "base-bin", "", "the base's rdma-bench binary (default: this one)")
	fs.StringVar(&o.CandBin, "candidate-bin", "", "the candidate's rdma-bench binary (default: this one)")
	fs.StringVar(&o.BaseArgs, "base-args", "", "extra run flags of the base, split at spaces, such as \"-I 0\"")
	fs.StringVar(&o.CandArgs, "candidate-args", "", "extra run flags of the candidate, split at spaces")
	fs.StringArrayVar(&o.BaseEnv, "base-env", nil, "NAME=VALUE added to the base's environment (repeatable), such as LD_LIBRARY_PATH=/opt/rdma-core/lib")
	fs.StringArrayVar(&o.CandEnv, "candidate-env", nil, "NAME=VALUE added to the candidate's environment (repeatable)")
	fs.StringVar(&o.BaseBefore, "base-before", "", "shell command run before every base run")
	fs.StringVar(&o.BaseAfter, "base-after", "", "shell command run after every base run")
	fs.StringVar(&o.CandBefore, "candidate-before", "", "shell command run before every candidate run (a qdisc, a sysctl)")
	fs.StringVar(&o.CandAfter, "candidate-after", "", "shell command run after every candidate run")
	fs.StringVar(&o.Host, "host", "", "measure against servers on this host (started beforehand, of a version that serves both sides) instead of --loopback")
	fs.IntVarP(&o.Iters, "iters", "n", 3000, "timed iterations of a latency run")
	fs.Float64VarP(&o.Duration, "duration", "D", 0.2, "seconds of a bandwidth run")
	fs.StringVar(&o.FailOn, "fail-on", DefaultFailOn, "thresholds: lat.p50>+N% for latency points, bw<-N% for bandwidth points "+
		"(not compare's default: a gate point is one figure, paired within a time budget, and on soft-RoCE its bandwidth pairs spread too far to decide 3% in that budget)")
	fs.Float64Var(&o.Alpha, "alpha", 0.01, "the chance, at most, that a gate fails when the candidate is no slower (split over points and looks)")
	fs.IntVar(&o.FirstLook, "first-look", 10, "pairs of a point at the first look")
	fs.Float64Var(&o.LookGrowth, "look-growth", 1.5, "each later look comes when the pairs have grown by this factor")
	fs.IntVar(&o.MaxPairs, "max-pairs", 1000, "the most pairs of a point (up to 1000); the budget usually ends the gate first, with a final look")
	fs.DurationVar(&o.Budget, "budget", 5*time.Minute, "the time the gate may take, warm-up included: it measures while a point is undecided and another round fits")
	fs.StringVar(&o.Method, "method", string(Paired), "how a point's change is estimated: paired (per-pair log ratios) or unpaired (the two sides' runs)")
	fs.BoolVar(&o.Workers, "worker", true, "run each side's runs in a process of its own kept between runs (rdma-bench worker); false, or a side without that mode: a process per run, for both sides")
	fs.BoolVar(&o.Overlap, "overlap", true, "overlap each pair's two runs: both sides set up and tear down at once, their timed parts one after the other with nothing else running (needs --loopback, workers and no --*-before/--*-after); false: the runs one after the other")
	fs.IntVar(&o.WorkerRounds, "worker-rounds", 1, "replace each side's worker by a fresh one after this many rounds of pairs, so that pairs of different rounds are independent (0: one worker a side for the whole gate, faster, but what a process keeps can bias a side)")
	fs.DurationVar(&o.Timeout, "run-timeout", 2*time.Minute, "the most time one run may take")
	fs.StringVarP(&o.Format, "output", "o", "table", "output format: table, json (the saved document), markdown ($GITHUB_STEP_SUMMARY) or junit (a CI's test report)")
	fs.StringVar(&o.OutFile, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.StringVar(&o.SaveDir, "save-dir", filepath.Join("results", "gate"), "where the gate's document is saved (after every round of pairs)")
}
