package workloads

import (
	"errors"
	"fmt"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// ErrLostCompletion is a loop that waited out its idle timeout for a
// completion while the peer kept showing signs of life: the work was
// posted, the peer was there, and no completion came.
var ErrLostCompletion = errors.New("a completion was lost (the provider or the device dropped it)")

// lostCompletion names err, a loop's idle timeout, a lost completion when
// the peer's heartbeat arrived within the last half of the idle timeout
// (it beats every quarter): a peer that stopped (SIGSTOP, a frozen host,
// a partition) stops its heartbeat too. Any other err is returned as is.
func (s *session) lostCompletion(err error) error {
	if !errors.Is(err, engine.ErrPeerIdle) {
		return err
	}
	since := time.Since(time.Unix(0, s.alive.Load()))
	if since > s.local.IdleTimeout/2 {
		return err
	}
	dev, provider := "", ""
	if d := s.side.deviceInfo(); d != nil {
		dev, provider = d.Name, d.Provider
	}
	return lostError(s.local.IdleTimeout, dev, provider, ThisHost().RDMACore)
}

// lostError is the lost completion's message: what waited, on what, and
// the provider's known fault where there is one.
func lostError(idle time.Duration, dev, provider, version string) error {
	msg := fmt.Sprintf("no completion for %v while the peer was alive; device %s, provider %s, rdma-core %s",
		idle, orUnknown(dev), orUnknown(provider), orUnknown(version))
	if bug := verbs.KnownBug(provider, version); bug != "" {
		msg += "; " + bug
	}
	return fmt.Errorf("%w: %s", ErrLostCompletion, msg)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
