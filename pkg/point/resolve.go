package point

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
)

// Defaults. The bandwidth queue depths and moderation are perftest's
// (DEF_TX_BW 128, DEF_RX_SEND 512, DEF_CQ_MOD 100). For latency perftest
// uses a send queue of 1 and signals every operation; rdma-bench gives the
// write and send ping-pongs a deeper queue and signals one in 32, so the
// sender reaps a completion only every 32 iterations (READ and atomic
// latency signal every operation: -Q 1).
const (
	defaultLatTxDepth = 64
	defaultLatRxDepth = 16
	defaultLatCQMod   = 32
	defaultBwTxDepth  = 128
	defaultRxDepth    = 512
	defaultBwCQMod    = 100
	defaultLatIters   = 1000
	defaultBwIters    = 5000
	defaultTCPBwIters = 50000 // 3.3 GB of 64 KiB messages: about a second on loopback
	maxWarmupDefault  = 100
	warmupBytesBudget = 16 << 20
	maxSize           = 1 << 30
)

// Limits are what resolution needs of the host it runs on.
type Limits struct {
	// ActiveMTU is the local port's, for a UD message's default size; 0
	// where no device is known.
	ActiveMTU int
	// CheckRate refuses a --rate the local clock cannot schedule; nil
	// checks none.
	CheckRate func(rate int) error
}

// Resolved is a Spec with every default filled in and every check
// passed. Only [Spec.Resolve] makes one, and the measuring side takes
// nothing else, so that no step resolves again: a server resolves the
// Spec its client sent once, as the check it is.
type Resolved struct{ Spec }

// Resolve checks s and returns a copy with every default filled in, and
// notes on choices the user may not expect (for stderr). lim describes
// the host for the defaults and checks that depend on it (a UD message's
// size, the highest rate). Resolving a resolved Spec changes nothing.
func (s Spec) Resolve(lim Limits) (Resolved, []string, error) {
	w, err := catalog.Lookup(s.Workload)
	if err != nil {
		return Resolved{}, nil, err
	}
	for _, p := range params {
		if p.isSet(&s) && !p.Applies(w) {
			return Resolved{}, nil, fmt.Errorf("%s applies to %s, not %s", p.flagName(), catalog.Where(p.Applies), w.Name)
		}
	}
	r := s
	var notes []string
	note := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	if r.Transport == "" && r.Mcast {
		r.Transport = "UD"
		note("%s -g (--mcg) with no -c: over UD, the transport of multicast (as perftest)", w.Name)
	}
	if r.Transport == "" {
		r.Transport = w.Transports[0]
	}
	if !w.Supports(r.Transport) {
		return Resolved{}, nil, fmt.Errorf("%s cannot run over %s: %s supports %s", w.Name, r.Transport, w.Name, strings.Join(w.Transports, ", "))
	}
	if r.Iterations != 0 && r.Duration != 0 {
		return Resolved{}, nil, errors.New("-n (iterations) and -D (duration) cannot go together: choose one")
	}
	if err := r.resolveSize(w, lim, note); err != nil {
		return Resolved{}, nil, err
	}
	r.resolveCount(w)
	if w.Family == catalog.RDMA {
		if err := r.resolveRDMA(w, lim, note); err != nil {
			return Resolved{}, nil, err
		}
	}
	return Resolved{r}, notes, nil
}

func (r *Spec) resolveSize(w catalog.Workload, lim Limits, note func(string, ...any)) error {
	switch {
	case w.Op == catalog.OpAtomic:
		if r.Size != 0 && r.Size != 8 {
			return fmt.Errorf("size %d: atomic operations move exactly 8 bytes", r.Size)
		}
		r.Size = 8
		if r.Atomic == "" {
			r.Atomic = "fadd"
		}
	case r.Size != 0:
	case r.Transport == "UD" && lim.ActiveMTU > 0:
		r.Size = lim.ActiveMTU
		note("%s over UD with no -s: %d bytes, the port's active MTU (as perftest)", w.Name, r.Size)
	case w.Latency():
		r.Size = 2
	default:
		r.Size = 65536
	}
	if r.Size < 1 || r.Size > maxSize {
		return fmt.Errorf("size %d: must be 1 byte to 1 GiB", r.Size)
	}
	return nil
}

// resolveCount fills in the iteration count and the warm-up.
func (r *Spec) resolveCount(w catalog.Workload) {
	if r.Iterations == 0 && r.Duration == 0 {
		switch {
		case w.Latency():
			r.Iterations = defaultLatIters
		case w.Family == catalog.TCP:
			r.Iterations = defaultTCPBwIters
		default:
			r.Iterations = defaultBwIters
		}
	}
	if r.Warmup < 0 {
		n := maxWarmupDefault
		if r.Iterations > 0 {
			n = min(n, max(1, r.Iterations/10))
		}
		r.Warmup = min(n, max(1, warmupBytesBudget/r.Size))
	}
}

func (r *Spec) resolveRDMA(w catalog.Workload, lim Limits, note func(string, ...any)) error {
	if r.Imm && r.Transport == "UD" {
		return errors.New("--imm needs RC or UC: UD has no RDMA WRITE")
	}
	if err := r.checkRate(w, lim); err != nil {
		return err
	}
	if err := r.checkLoaders(); err != nil {
		return err
	}
	if r.Mcast && r.Transport != "UD" {
		return fmt.Errorf("-g (--mcg) needs -c UD: multicast carries unreliable datagrams, not %s", r.Transport)
	}
	if r.RDMACM && r.Transport == "UD" {
		return errors.New("--rdma-cm connects RC and UC queue pairs: UD needs no connection")
	}
	if w.Latency() && w.Op == catalog.OpWrite && r.Events && !r.Imm {
		// The responder's completion event needs a receive: the only
		// way to wait for a WRITE's arrival without spinning on memory.
		r.Imm = true
		note("write_lat -e: waiting for an event needs a receive completion: RDMA WRITE with immediate (--imm)")
	}
	if !w.Latency() {
		r.QPs, r.Threads, r.PostList = max(r.QPs, 1), max(r.Threads, 1), max(r.PostList, 1)
	}
	if r.QPs%r.ThreadCount() != 0 {
		return fmt.Errorf("-q %d --threads %d: the queue pairs must divide evenly among the threads", r.QPs, r.Threads)
	}
	if r.TxDepth == 0 {
		r.TxDepth = defaultBwTxDepth
		if w.Latency() {
			r.TxDepth = defaultLatTxDepth
		}
	}
	rxSet := r.RxDepth != 0
	if r.RxDepth == 0 {
		r.RxDepth = defaultRxDepth
		if w.Latency() {
			r.RxDepth = defaultLatRxDepth
		}
	}
	if r.SRQ && !w.Latency() {
		// One shared receive queue takes every QP's sends in flight.
		need := r.QPsPerThread() * r.TxDepth
		switch {
		case !rxSet:
			r.RxDepth = max(r.RxDepth, min(need, 65536))
		case r.RxDepth < need && r.Transport != "RC":
			return fmt.Errorf("-r %d with --use-srq over %s: the shared receive queue must hold every QP's sends in flight (%d QPs per thread x -t %d = %d), or %s drops what finds no receive: raise -r or lower -q or -t",
				r.RxDepth, r.Transport, r.QPsPerThread(), r.TxDepth, need, r.Transport)
		}
	}
	roundTrip := w.Latency() && !w.PingPong()
	if roundTrip && r.CQMod > 1 {
		return fmt.Errorf("-Q %d: %s times each operation to its own completion, so every one is signalled: -Q must be 1", r.CQMod, w.Name)
	}
	if r.CQMod == 0 {
		switch {
		case roundTrip:
			r.CQMod = 1
		case w.Latency():
			r.CQMod = min(defaultLatCQMod, r.TxDepth)
		default:
			r.CQMod = min(defaultBwCQMod, r.TxDepth)
		}
	}
	if r.CQMod > r.TxDepth {
		return fmt.Errorf("-Q %d: cq moderation must be 1..tx-depth (%d)", r.CQMod, r.TxDepth)
	}
	if r.PostsPerCall() > r.TxDepth {
		return fmt.Errorf("-l %d: post list must be 1..tx-depth (%d)", r.PostList, r.TxDepth)
	}
	return nil
}

// checkRate refuses a rate the loop cannot keep.
func (r *Spec) checkRate(w catalog.Workload, lim Limits) error {
	switch {
	case r.Rate == 0:
		return nil
	case r.Events:
		return errors.New("--rate keeps a schedule by busy polling: drop -e")
	case lim.CheckRate != nil && lim.CheckRate(r.Rate) != nil:
		return lim.CheckRate(r.Rate)
	case r.Rate < r.ThreadCount():
		return fmt.Errorf("--rate %d: the rate is shared among the threads (--threads %d): give at least one operation per second each", r.Rate, r.ThreadCount())
	case r.Validate && w.Latency():
		return errors.New("--validate checks a closed loop's payloads: drop --rate or --validate")
	}
	return nil
}

// Slots is how many operations an open loop keeps in flight, each in its
// own slot of every region: the send queue's depth (and the receive
// queue's, for a SEND or an immediate), at most 255 (a WRITE ping-pong
// tells its slots apart by a byte); one for a closed loop.
func (s Spec) Slots() int {
	w, _ := catalog.Lookup(s.Workload)
	if s.Rate == 0 || !w.Latency() {
		return 1
	}
	n := min(s.TxDepth, 255)
	if w.Op == catalog.OpSend || s.Imm {
		n = min(n, s.RxDepth)
	}
	return max(n, 1)
}

// PostsPerCall is the work requests per post call (latency: one).
func (s Spec) PostsPerCall() int { return max(s.PostList, 1) }

// ThreadCount is the number of measuring threads per side.
func (s Spec) ThreadCount() int { return max(s.Threads, 1) }

// Workers is how many threads a side runs: the point's own, then one a
// loader (--loaders).
func (s Spec) Workers() int { return s.ThreadCount() + s.Loaders }

// checkLoaders refuses a loaded-latency run the open loop cannot carry.
func (r *Spec) checkLoaders() error {
	switch {
	case r.Loaders == 0:
		return nil
	case r.Rate == 0:
		return fmt.Errorf("--loaders %d: loaded latency is measured open-loop, from each operation's due time: give --rate too (e.g. --rate 2000)", r.Loaders)
	case r.Mcast:
		return errors.New("--loaders: loaders stream over connected QPs, not multicast: drop -g")
	}
	return nil
}

// QPsPerThread is how many queue pairs each thread drives.
func (s Spec) QPsPerThread() int { return max(s.QPs, 1) / s.ThreadCount() }

// CQEntries is the completion queue a thread needs: every QP's sends and receives.
func (s Spec) CQEntries() int { return s.QPsPerThread() * (s.TxDepth + s.RxDepth) }
