package point

import (
	"os"
	"time"
)

// Spec is what a run asks for: the parameters both sides share, sent to
// the peer in the handshake. Zero values (-1 for Warmup) mean "the
// default"; [Spec.Resolve] returns a copy with every default filled in
// (a [Resolved]), which is what goes over the wire and into the results.
// Each field is a row of the parameter table (package catalog), which
// gives its keys, its flag and the workloads it applies to; fields, below,
// binds the rows to the fields.
type Spec struct {
	Workload  string
	Transport string // RC, UC, UD; TCP for the TCP baseline
	// Events waits for completion events (RDMA) or blocks in the kernel
	// (TCP) instead of busy polling.
	Events     bool
	Size       int           // bytes
	Iterations int           // timed iterations (iteration mode)
	Duration   time.Duration // timed duration (duration mode)
	Warmup     int           // untimed iterations first; -1: the default
	TxDepth    int
	RxDepth    int
	CQMod      int // signal one send in CQMod
	PostList   int // work requests per post call
	QPs        int
	Threads    int
	Bidir      bool
	Imm        bool   // RDMA WRITE with immediate
	Atomic     string // fadd or cswap
	Validate   bool   // pattern the payloads and check them after the run
	RDMACM     bool   // connect the queue pairs through rdma_cm
	HugePages  bool   // back the registered buffers with 2 MiB pages
	SRQ        bool   // one shared receive queue per thread, of RxDepth
	Mcast      bool   // UD sends to multicast groups the receivers joined
	// PostAPI is how work requests are posted: "ex" (ibv_wr_*),
	// "classic" (ibv_post_send), or "" for ex where the device can.
	PostAPI string
	// Rate, in operations per second, issues operations on a fixed
	// schedule: open-loop latency for a latency workload, a rate limit
	// for a bandwidth one; 0 for none.
	Rate int
	// Loaders, for a latency workload, is how many loader QPs stream its
	// bandwidth counterpart (catalog.LoaderOf) on threads of their own
	// while the latency is measured: loaded latency; 0 for none.
	Loaders int
}

// fields binds each shared parameter, by its handshake key, to its Spec
// field: adding a parameter is its row in catalog's table, its field in
// Spec and here, its field in report.Params (filled by report.ParamsOf)
// and its use.
var fields = map[string]func(*Spec) any{
	"workload":   func(s *Spec) any { return &s.Workload },
	"transport":  func(s *Spec) any { return &s.Transport },
	"size":       func(s *Spec) any { return &s.Size },
	"iterations": func(s *Spec) any { return &s.Iterations },
	"duration":   func(s *Spec) any { return &s.Duration },
	"warmup":     func(s *Spec) any { return &s.Warmup },
	"completion": func(s *Spec) any { return &s.Events },
	"tx_depth":   func(s *Spec) any { return &s.TxDepth },
	"rx_depth":   func(s *Spec) any { return &s.RxDepth },
	"cq_mod":     func(s *Spec) any { return &s.CQMod },
	"post_list":  func(s *Spec) any { return &s.PostList },
	"qps":        func(s *Spec) any { return &s.QPs },
	"threads":    func(s *Spec) any { return &s.Threads },
	"bidir":      func(s *Spec) any { return &s.Bidir },
	"imm":        func(s *Spec) any { return &s.Imm },
	"atomic":     func(s *Spec) any { return &s.Atomic },
	"validate":   func(s *Spec) any { return &s.Validate },
	"rdma_cm":    func(s *Spec) any { return &s.RDMACM },
	"hugepages":  func(s *Spec) any { return &s.HugePages },
	"post_api":   func(s *Spec) any { return &s.PostAPI },
	"srq":        func(s *Spec) any { return &s.SRQ },
	"mcast":      func(s *Spec) any { return &s.Mcast },
	"rate":       func(s *Spec) any { return &s.Rate },
	"loaders":    func(s *Spec) any { return &s.Loaders },
}

// NewSpec returns the Spec of workload with every parameter unset.
func NewSpec(workload string) Spec { return Spec{Workload: workload, Warmup: -1} }

// PageBytes is the size of the pages behind the registered buffers.
func (s Spec) PageBytes() int {
	if s.HugePages {
		return HugePageBytes
	}
	return os.Getpagesize()
}

// Completion names the completion mode as results report it.
func (s Spec) Completion() string {
	if s.Events {
		return "event"
	}
	return "poll"
}
