package gate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/metric"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// Method is how a point's change is estimated from its pairs.
type Method string

// The methods.
const (
	// Paired: the Hodges-Lehmann estimate of the per-pair log ratios with
	// signed-rank bounds ([compare.PairedShift]).
	Paired Method = "paired"
	// Unpaired: the two-sample Hodges-Lehmann shift with Mann-Whitney
	// bounds ([compare.ShiftInterval]), the pairs' order ignored.
	Unpaired Method = "unpaired"
)

// Point is one gated benchmark point: a workload at one size.
type Point struct {
	Workload  string `json:"workload"`
	SizeBytes int    `json:"size_bytes"`
	// Latency is true for latency workloads (gated on the median latency),
	// false for bandwidth ones (gated on the bandwidth).
	Latency bool `json:"latency"`
}

// ParsePoint parses WORKLOAD:SIZE, such as "write_lat:64" or
// "write_bw:4K".
func ParsePoint(s string) (Point, error) {
	name, size, ok := strings.Cut(s, ":")
	if !ok || name == "" || size == "" {
		return Point{}, fmt.Errorf("point %q: want WORKLOAD:SIZE, such as write_lat:64 or write_bw:4K", s)
	}
	w, err := catalog.Lookup(name)
	if err != nil {
		return Point{}, fmt.Errorf("point %q: %w", s, err)
	}
	n, err := point.ParseSize(size)
	if err != nil {
		return Point{}, fmt.Errorf("point %q: %w", s, err)
	}
	return Point{Workload: w.Name, SizeBytes: n, Latency: w.Latency()}, nil
}

// DefaultPoints is the gate's default set: RDMA WRITE, READ and SEND, and
// the TCP baseline, latency and bandwidth at a small and a page size.
var DefaultPoints = []string{"write_lat:64", "read_lat:4K", "write_bw:4K", "send_bw:64", "tcp_lat:64"}

// String names the point as a table row does: "write_lat 64 B".
func (p Point) String() string {
	return p.Workload + " " + display.Size(p.SizeBytes)
}

// Metric is the metric the point is gated on.
func (p Point) Metric() metric.Metric {
	if p.Latency {
		return metric.LatP50
	}
	return metric.BW
}

// Side is one side of the gate: a binary, its extra flags, its
// environment and shell commands run around each of its runs.
type Side struct {
	Name string `json:"name"`
	// Bin is the binary run; Path, when set, the one the user named (Bin
	// is then its private copy: [Snapshot]).
	Bin  string   `json:"bin"`
	Path string   `json:"path,omitempty"`
	Args []string `json:"args,omitempty"`
	// Env holds NAME=VALUE pairs added to the run's environment (another
	// rdma-core through LD_LIBRARY_PATH, say).
	Env []string `json:"env,omitempty"`
	// Before and After are shell commands (sh -c) run before and after
	// every run of this side: a qdisc, a sysctl.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Version is what the binary's "version" command printed.
	Version string `json:"version,omitempty"`
	// RDMACore is the rdma-core the side's first RDMA run said it ran on
	// ([RDMACoreOf]): with --base-env/--candidate-env LD_LIBRARY_PATH=...,
	// the two sides' may differ.
	RDMACore string `json:"rdma_core,omitempty"`
	// Device is the device the side's first RDMA run measured on, and why
	// ([DeviceOf]).
	Device string `json:"device,omitempty"`
	// RunsAs is how the side's runs were made: in a worker kept between
	// runs, or a process each ([Pool]); RunsAsWhy says why not a worker.
	RunsAs    string `json:"runs_as,omitempty"`
	RunsAsWhy string `json:"runs_as_why,omitempty"`
}

// Config is what a gate measures and how it decides.
type Config struct {
	Points          []Point
	Base, Candidate Side
	// Target is the run's target: ["--loopback"], or a server host.
	Target []string
	// LatencyIters is -n of a latency run; BandwidthSeconds is -D of a
	// bandwidth run.
	LatencyIters     int
	BandwidthSeconds float64
	// Thresholds gate the points' metrics (by name).
	Thresholds []compare.Threshold
	// Alpha is the chance, at most, that an A/A gate fails.
	Alpha float64
	// FirstLook is the pairs of a point at the first look; each later
	// look comes when its pairs have grown by LookGrowth (rounded up), up
	// to MaxPairs, the most pairs of a point, whose look is final. The
	// budget usually ends a gate first (its last look is then final).
	FirstLook  int
	LookGrowth float64
	MaxPairs   int
	// Budget bounds the whole gate's time, warm-up included.
	Budget time.Duration
	Method Method
	// WorkerRounds: each side's worker is replaced by a fresh one after
	// this many rounds (0: one worker a side for the whole gate).
	WorkerRounds int
}

// Schedule is the number of pairs at each scheduled look: FirstLook,
// then grown by LookGrowth each time, and MaxPairs.
func (c *Config) Schedule() []int {
	var s []int
	for n := c.FirstLook; n < c.MaxPairs; n = max(n+1, int(math.Ceil(float64(n)*c.LookGrowth))) {
		s = append(s, n)
	}
	return append(s, c.MaxPairs)
}

// decisivePairs is the fewest pairs at which a look can decide a row:
// the first look, or, before it, a final look spending the row's whole
// share of the false-alarm budget.
func (c *Config) decisivePairs() int {
	share := c.Alpha / float64(len(c.Points))
	for n := 2; n < c.FirstLook; n++ {
		if c.CanDecide(n, share) {
			return n
		}
	}
	return c.FirstLook
}

// CanDecide reports whether a look at this many pairs can bound an
// interval whose one-sided error is a: whether the method's smallest
// one-sided p-value (all pairs one way) is at most a. A look that cannot
// spends none of the false-alarm budget ([compare.Spending]).
func (c *Config) CanDecide(pairs int, a float64) bool {
	if !(a > 0) {
		return false
	}
	if c.Method == Unpaired { // 1 / C(2n, n), in logs
		lg := 0.0
		for i := 1; i <= pairs; i++ {
			lg += math.Log(float64(pairs+i)) - math.Log(float64(i))
		}
		return -lg <= math.Log(a)
	}
	return -float64(pairs)*math.Ln2 <= math.Log(a)
}

// threshold returns the threshold of the point's metric.
func (c *Config) threshold(p Point) (compare.Threshold, bool) {
	for _, t := range c.Thresholds {
		if t.Metric.Name == p.Metric().Name {
			return t, true
		}
	}
	return compare.Threshold{}, false
}

// Check says what is wrong with the configuration.
func (c *Config) Check() error {
	if len(c.Points) == 0 {
		return errors.New("no point to gate: want at least one WORKLOAD:SIZE")
	}
	seen := map[Point]bool{}
	for _, p := range c.Points {
		if seen[p] {
			return fmt.Errorf("point %s given twice", p)
		}
		seen[p] = true
		if _, ok := c.threshold(p); !ok {
			return fmt.Errorf("point %s: no threshold for its metric %s (--fail-on)", p, p.Metric().Name)
		}
	}
	switch {
	case c.Base.Bin == "" || c.Candidate.Bin == "":
		return errors.New("a side has no binary")
	case c.LatencyIters < 1:
		return fmt.Errorf("-n %d: want at least 1 iteration per latency run", c.LatencyIters)
	case !(c.BandwidthSeconds >= 0.001 && c.BandwidthSeconds <= 60):
		return fmt.Errorf("-D %g: want 0.001 to 60 seconds per bandwidth run", c.BandwidthSeconds)
	case c.FirstLook < 2:
		return fmt.Errorf("--first-look %d: want at least 2 pairs", c.FirstLook)
	case !(c.LookGrowth >= 1.1 && c.LookGrowth <= 4):
		return fmt.Errorf("--look-growth %g: want 1.1 to 4 (each look at that many times the pairs of the one before)", c.LookGrowth)
	case c.MaxPairs < c.FirstLook:
		return fmt.Errorf("--max-pairs %d: want at least --first-look (%d)", c.MaxPairs, c.FirstLook)
	case c.MaxPairs > 1000:
		return fmt.Errorf("--max-pairs %d: want at most 1000", c.MaxPairs)
	case c.Budget <= 0:
		return fmt.Errorf("--budget %v: want a positive duration", c.Budget)
	case c.WorkerRounds < 0:
		return fmt.Errorf("--worker-rounds %d: want 0 or more", c.WorkerRounds)
	case c.Method != Paired && c.Method != Unpaired:
		return fmt.Errorf("--method %q: want paired or unpaired", c.Method)
	}
	return compare.Spending{Alpha: c.Alpha, Rows: len(c.Points), Horizon: c.FirstLook}.Check()
}
