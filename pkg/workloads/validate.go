package workloads

import (
	"encoding/binary"
	"fmt"
	"time"

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

func (s *session) fillPatterns() {
	if !s.cfg.Validate {
		return
	}
	for _, wk := range s.node.workers {
		for _, q := range wk.qps {
			fillPattern(q.local(), patternSeed(s.role, false))
			if s.w.Op == OpRead {
				fillPattern(q.target(), patternSeed(s.role, true))
			}
		}
	}
}

// validate checks what arrived; it returns "" or what was wrong.
func (s *session) validate(results []workerResult) string {
	if !s.cfg.Validate {
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
	size := s.cfg.Size
	grh := 0
	if s.cfg.Transport == "UD" {
		grh = udGRH
	}
	k := 0
	for _, wk := range s.node.workers {
		for _, q := range wk.qps {
			var err error
			switch validationFor(s.w, s.cfg, s.role) {
			case checkTarget:
				n := size
				if s.w.Op == OpWrite && s.w.Latency() {
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
func (s *session) checkAtomics(wk *worker, wi int) string {
	for qi := range wk.qps {
		k := wi*len(wk.qps) + qi
		if err := s.checkAtomic(wk, qi, k); err != nil {
			return fmt.Sprintf("queue pair %d: %v", k, err)
		}
	}
	return ""
}

// checkAtomic reads the peer's atomic target back with one RDMA READ and
// compares it with what this side's operations must have left there.
func (s *session) checkAtomic(wk *worker, qi, k int) error {
	q := wk.qps[qi]
	pe := s.peer.QPs[k]
	posted := wk.eng.Posted(qi)
	want := posted
	if s.cfg.Atomic == "cswap" {
		want = min(posted, 1)
	}
	if err := q.qp.PostSend(verbs.SendWR{ID: 1 << 40, Op: verbs.OpRead, Local: q.mr, Offset: 8, Length: 8,
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
		return fmt.Errorf("atomic target holds %d after %d %s operations, want %d", got, posted, s.cfg.Atomic, want)
	}
	return nil
}
