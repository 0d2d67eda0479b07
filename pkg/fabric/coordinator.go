package fabric

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/fabric/pmi"
)

// coordinate is rank 0's rendezvous: listen, publish the address, gather
// every rank's registration within Timeout, then send the member list.
func (s *Session) coordinate(ctx context.Context) error {
	deadline := time.Now().Add(s.cfg.Timeout)
	ln, err := s.listen()
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := s.publish(ctx, deadline, ln.Addr().(*net.TCPAddr).Port); err != nil {
		return err
	}
	if s.Method == MethodDir {
		// All ranks have read it, or never will: leave no stale address.
		defer removeAddrFile(s.cfg.Dir)
	}
	g := newGathering(s.World.Size, s.cfg.Log)
	if err := g.run(ctx, s, ln, deadline); err != nil {
		msg := &message{Type: msgError, Error: err.Error()}
		for _, l := range g.links {
			if l != nil {
				_ = l.send(context.Background(), msg, s.cfg.IOTimeout)
				l.Close()
			}
		}
		return err
	}
	s.links = g.links
	s.Members = g.members
	s.Members[0] = s.cfg.Self
	welcome := &message{Type: msgWelcome, Members: s.Members}
	for r, l := range s.links[1:] {
		if err := l.send(ctx, welcome, s.cfg.IOTimeout); err != nil {
			return fmt.Errorf("%s lost after registering: %w", s.Members[r+1], err)
		}
	}
	return nil
}

// listen opens the coordinator's listener: on --coordinator's port, or on
// a free port for PMI and Dir.
func (s *Session) listen() (net.Listener, error) {
	port := "0"
	if s.Method == MethodCoordinator {
		_, port, _ = net.SplitHostPort(s.cfg.Coordinator)
	}
	addr := net.JoinHostPort(s.cfg.ListenHost, port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("coordinator listen on %s: %w", addr, err)
	}
	return ln, nil
}

// publish makes rank 0's address known: a PMI put then barrier, a file in
// Dir, or nothing for --coordinator (whose address the others know).
func (s *Session) publish(ctx context.Context, deadline time.Time, port int) error {
	if s.Method == MethodCoordinator {
		s.CoordinatorAddr = s.cfg.Coordinator
		return nil
	}
	host, err := s.advertiseHost()
	if err != nil {
		return err
	}
	s.CoordinatorAddr = net.JoinHostPort(host, strconv.Itoa(port))
	if s.Method == MethodDir {
		return writeAddrFile(s.cfg.Dir, s.CoordinatorAddr)
	}
	_, err = s.pmiExchange(ctx, deadline, s.CoordinatorAddr)
	return err
}

// pmiExchange is the PMI part of the rendezvous: rank 0 puts addr, every
// rank enters the barrier, the others get the address, which it returns.
func (s *Session) pmiExchange(ctx context.Context, deadline time.Time, addr string) (string, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	c, err := pmi.Open(s.cfg.Getenv("PMI_FD"))
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := c.Init(ctx); err != nil {
		return "", err
	}
	if s.World.Rank == 0 {
		if err := c.Put(ctx, pmiKey, addr); err != nil {
			return "", err
		}
	}
	if err := c.Barrier(ctx); err != nil {
		return "", fmt.Errorf("%w (a rank of the job never started, or is not rdma-bench?)", err)
	}
	if s.World.Rank != 0 {
		if addr, err = c.Get(ctx, pmiKey); err != nil {
			return "", err
		}
	}
	if err := c.Finalize(ctx); err != nil {
		return "", err
	}
	return addr, nil
}

// formatRanks lists ranks, runs of three or more as a range: "2, 3",
// "0-5, 9".
func formatRanks(ranks []int) string {
	out := ""
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if out != "" {
			out += ", "
		}
		switch {
		case j-i >= 2:
			out += fmt.Sprintf("%d-%d", ranks[i], ranks[j])
		case j == i+1:
			out += fmt.Sprintf("%d, %d", ranks[i], ranks[j])
		default:
			out += strconv.Itoa(ranks[i])
		}
		i = j + 1
	}
	return out
}

// missingError names the ranks that never registered.
func missingError(missing []int, timeout time.Duration) error {
	word := "ranks"
	if len(missing) == 1 {
		word = "rank"
	}
	return fmt.Errorf("%s %s never registered within %s", word, formatRanks(missing), fmtDuration(timeout))
}

var errGatheringOver = errors.New("rank 0's rendezvous is over: this registration came too late")
