package fabric

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// gathering is rank 0 collecting registrations.
type gathering struct {
	mu       sync.Mutex
	members  []Member
	links    []*link
	count    int // ranks registered, rank 0 excluded
	err      error
	over     bool
	complete chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
}

func newGathering(size int) *gathering {
	return &gathering{members: make([]Member, size), links: make([]*link, size), complete: make(chan struct{})}
}

func (g *gathering) finish() { g.once.Do(func() { close(g.complete) }) }

// run accepts registrations until every rank has registered, one is
// refused, deadline passes or ctx is done. It returns the reason it
// stopped short; the links of the registered ranks are then in g.links.
func (g *gathering) run(ctx context.Context, s *Session, ln net.Listener, deadline time.Time) error {
	size := s.World.Size
	g.wg.Add(1) // the accept loop, so that handlers are added while Wait cannot run
	go func() {
		defer g.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener is closed below
			}
			g.wg.Add(1)
			go g.handle(ctx, s, c)
		}
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-g.complete:
	case <-timer.C:
	case <-ctx.Done():
	}
	ln.Close()
	g.mu.Lock()
	g.over = true
	err := g.err
	if err == nil && g.count < size-1 {
		var missing []int
		for r := 1; r < size; r++ {
			if g.links[r] == nil {
				missing = append(missing, r)
			}
		}
		err = missingError(missing, s.cfg.Timeout)
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%d of %d ranks registered)", ctx.Err(), g.count+1, size)
		}
	}
	g.mu.Unlock()
	g.wg.Wait() // handlers end within IOTimeout
	return err
}

// handle reads one connection's registration. A connection that sends no
// frame is not a rank (a port scan, a health check) and is dropped; a
// registration that cannot join the run stops the rendezvous.
func (g *gathering) handle(ctx context.Context, s *Session, c net.Conn) {
	defer g.wg.Done()
	l := newLink(c, "connection from "+c.RemoteAddr().String())
	m, err := l.recv(ctx, s.cfg.IOTimeout)
	if err != nil {
		l.Close()
		return
	}
	if err := checkRegistration(s.cfg.Self, s.World.Size, m); err != nil {
		g.refuse(ctx, s, l, err, true)
		return
	}
	r := m.Member.Rank
	g.mu.Lock()
	switch over := g.over; {
	case g.links[r] != nil:
		// Refused; fatal unless the run has started with the first claimant.
		first := g.members[r]
		g.mu.Unlock()
		g.refuse(ctx, s, l, fmt.Errorf("rank %d claimed twice: by %s (%s) and by %s (%s)",
			r, orDash(first.Hostname), orDash(first.Addr), orDash(m.Member.Hostname), orDash(m.Member.Addr)), !over)
		return
	case over:
		g.mu.Unlock()
		g.refuse(ctx, s, l, errGatheringOver, false)
		return
	}
	l.peer = m.Member.String()
	g.members[r] = *m.Member
	g.links[r] = l
	g.count++
	if g.count == s.World.Size-1 {
		g.finish()
	}
	g.mu.Unlock()
	// A failed ack shows again when the welcome is sent.
	_ = l.send(ctx, &message{Type: msgAck}, s.cfg.IOTimeout)
}

// refuse answers l with err and closes it; fatal errors stop the
// rendezvous for everyone.
func (g *gathering) refuse(ctx context.Context, s *Session, l *link, err error, fatal bool) {
	if fatal {
		g.mu.Lock()
		if g.err == nil && !g.over {
			g.err = err
		}
		g.mu.Unlock()
		g.finish()
	}
	_ = l.send(ctx, &message{Type: msgError, Error: err.Error()}, s.cfg.IOTimeout)
	l.Close()
}
