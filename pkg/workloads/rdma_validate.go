package workloads

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// Payload patterns: each side fills its local region with its own
// pattern, and its target region with a second one (the source of the
// peer's reads). Checks happen after the run, outside the timed loop.
func patternSeed(r role, target bool) byte {
	s := byte(17 + 64*int(r))
	if target {
		s += 31
	}
	return s
}

func fillPattern(b []byte, seed byte) {
	for i := range b {
		b[i] = byte(i*131) ^ seed
	}
}

// firstMismatch returns the index of the first byte of b that breaks the
// pattern, or -1.
func firstMismatch(b []byte, seed byte) int {
	for i := range b {
		if b[i] != byte(i*131)^seed {
			return i
		}
	}
	return -1
}

func (n *rdmaSide) fillPatterns() {
	if !n.s.spec.Validate {
		return
	}
	for _, wk := range n.ws {
		for _, q := range wk.qps {
			fillPattern(q.local(), patternSeed(n.s.role, false))
			if n.s.w.Op == catalog.OpRead {
				fillPattern(q.target(), patternSeed(n.s.role, true))
			}
		}
	}
}

// validate checks what arrived; it returns "" or what was wrong.
func (n *rdmaSide) validate(results []workerResult) string {
	s, c := n.s, n.s.spec
	if !c.Validate {
		return ""
	}
	for _, r := range results {
		if r.validation != "" {
			return r.validation
		}
	}
	peer := client
	if s.role == client {
		peer = server
	}
	size := c.Size
	grh := 0
	if c.Transport == "UD" {
		grh = udGRH
	}
	k := 0
	for _, wk := range n.ws {
		for _, q := range wk.qps {
			var err error
			switch validationFor(s.w, c, s.role) {
			case checkTarget:
				n := size
				if s.w.Op == catalog.OpWrite && s.w.Latency() {
					n-- // the last byte carries the ping-pong sequence
				}
				err = check(q.target()[grh:grh+n], patternSeed(peer, false), "received payload")
			case checkLocal:
				err = check(q.local()[:size], patternSeed(peer, true), "payload read")
			}
			if err != nil {
				return fmt.Sprintf("queue pair %d: %v", k, err)
			}
			k++
		}
	}
	return ""
}

func check(b []byte, seed byte, what string) error {
	if i := firstMismatch(b, seed); i >= 0 {
		return fmt.Errorf("%s byte %d is %#02x, want %#02x", what, i, b[i], byte(i*131)^seed)
	}
	return nil
}

// checkAtomics checks every QP of worker wi (see checkAtomic).
func (n *rdmaSide) checkAtomics(wk *rdmaWorker, wi int) string {
	for qi := range wk.qps {
		k := wi*len(wk.qps) + qi
		if err := n.checkAtomic(wk, qi, k); err != nil {
			return fmt.Sprintf("queue pair %d: %v", k, err)
		}
	}
	return ""
}

// checkAtomic reads the peer's atomic target back with one RDMA READ and
// compares it with what this side's operations must have left there.
func (n *rdmaSide) checkAtomic(wk *rdmaWorker, qi, k int) error {
	q := wk.qps[qi]
	pe := n.peer.QPs[k]
	posted := wk.eng.Posted(qi)
	want := posted
	if n.s.spec.Atomic == "cswap" {
		want = min(posted, 1)
	}
	if err := q.qp.PostSend(verbs.SendWR{ID: 1 << 40, Op: verbs.OpRead, Local: q.lmr, Offset: 8, Length: 8,
		RemoteAddr: pe.Addr, RKey: pe.RKey, Signaled: true}); err != nil {
		return fmt.Errorf("reading the atomic target back: %w", err)
	}
	for {
		wc, err := wk.cq.WaitOne(5 * time.Second)
		if err != nil {
			return fmt.Errorf("reading the atomic target back: %w", err)
		}
		if wc.WRID&((1<<48)-1) == 1<<40 {
			break
		}
	}
	if got := binary.LittleEndian.Uint64(q.local()[8:16]); got != want {
		return fmt.Errorf("atomic target holds %d after %d %s operations, want %d", got, posted, n.s.spec.Atomic, want)
	}
	return nil
}

// validation says what a side checks after the run: the target region
// (what the peer wrote or sent), the local region (what it read), or the
// atomic target it read back.
type validation int

const (
	checkNothing validation = iota
	checkTarget
	checkLocal
	checkAtomic
)

func validationFor(w catalog.Workload, c point.Resolved, r role) validation {
	active := r == client || c.Bidir
	switch w.Op {
	case catalog.OpWrite, catalog.OpSend:
		if w.Latency() || r == server || c.Bidir {
			return checkTarget
		}
	case catalog.OpRead:
		if active {
			return checkLocal
		}
	case catalog.OpAtomic:
		if r == client {
			return checkAtomic
		}
	}
	return checkNothing
}
