package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
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
	slots    chan struct{} // one a stranger: a connection not yet registered
	refused  refusals
}

func newGathering(size int, log io.Writer) *gathering {
	return &gathering{members: make([]Member, size), links: make([]*link, size), complete: make(chan struct{}),
		slots: make(chan struct{}, maxStrangers), refused: refusals{w: log}}
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
			select {
			case g.slots <- struct{}{}:
			default:
				c.Close() // a member retries; a flood costs nothing
				g.refused.note(c.RemoteAddr().String(), fmt.Sprintf("%d connections already waiting to register", maxStrangers))
				continue
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
	g.refused.flush()
	return err
}

// handle reads one connection's authentication and registration (see
// auth.go). A connection that is not a member's is refused and closed,
// and the gathering goes on; a member's registration that cannot join the
// run stops the rendezvous.
func (g *gathering) handle(ctx context.Context, s *Session, c net.Conn) {
	defer g.wg.Done()
	l, m, err := g.admit(ctx, s, c)
	if err != nil {
		why := err.Error()
		if l != nil {
			why = strings.TrimPrefix(why, "from "+l.peer+": ")
		}
		g.refused.note(c.RemoteAddr().String(), why)
		if l != nil {
			_ = l.send(ctx, &message{Type: msgError, Error: refusedText}, min(authTimeout, s.cfg.IOTimeout))
			linger(c)
		}
		c.Close()
		<-g.slots
		return
	}
	<-g.slots
	if err := checkRegistration(s.cfg.Self, s.World.Size, m.reg); err != nil {
		g.refuse(ctx, s, l, err, true)
		return
	}
	r := m.reg.Member.Rank
	g.mu.Lock()
	switch over := g.over; {
	case g.links[r] != nil:
		// Refused; fatal unless the run has started with the first claimant.
		first := g.members[r]
		g.mu.Unlock()
		g.refuse(ctx, s, l, fmt.Errorf("rank %d claimed twice: by %s (%s) and by %s (%s)",
			r, orDash(first.Hostname), orDash(first.Addr), orDash(m.reg.Member.Hostname), orDash(m.reg.Member.Addr)), !over)
		return
	case over:
		g.mu.Unlock()
		g.refuse(ctx, s, l, errGatheringOver, false)
		return
	}
	l.peer = m.reg.Member.String()
	l.limit = maxFrame
	g.members[r] = *m.reg.Member
	g.links[r] = l
	g.count++
	if g.count == s.World.Size-1 {
		g.finish()
	}
	g.mu.Unlock()
	// A failed ack shows again when the welcome is sent.
	_ = l.send(ctx, &message{Type: msgAck, Proof: proof(s.cfg.Token, proofRank0, m.nonce)}, s.cfg.IOTimeout)
}

// linger lets a refusal reach the peer: closing a connection with unread
// bytes would reset it, and the peer could lose the refusal. It ends the
// sending side, then drops what the peer still sends for at most
// lingerTime (nothing is kept).
func linger(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_ = c.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.CopyN(io.Discard, c, frameHeader+registerFrame)
}

const lingerTime = 100 * time.Millisecond

// admitted is what a stranger sent before rank 0 knows it is a member.
type admitted struct {
	reg   *message // the registration
	nonce string   // the rank's nonce, for rank 0's proof
}

// admit challenges a new connection and reads its proof and registration,
// each within authTimeout (or IOTimeout, if shorter) and a small frame.
// Its error is for rank 0's log only; the connection is told nothing but
// "refused" (and nothing at all when no link was made).
func (g *gathering) admit(ctx context.Context, s *Session, c net.Conn) (*link, admitted, error) {
	nonce, err := newNonce()
	if err != nil {
		return nil, admitted{}, err
	}
	l := newLink(c, "connection from "+c.RemoteAddr().String())
	var m *message
	l.limit = authFrame
	wait := min(authTimeout, s.cfg.IOTimeout)
	if err := l.send(ctx, &message{Type: msgChallenge, Nonce: nonce}, wait); err != nil {
		return nil, admitted{}, err
	}
	m, err = l.recv(ctx, wait)
	switch {
	case err != nil:
		return l, admitted{}, err
	case m.Type != msgAuth:
		return l, admitted{}, fmt.Errorf("sent %q, want auth", m.Type)
	case !proven(s.cfg.Token, proofRank, nonce, m.Proof):
		return l, admitted{}, errors.New("wrong token")
	}
	a := admitted{nonce: m.Nonce}
	l.limit = registerFrame
	if a.reg, err = l.recv(ctx, wait); err != nil {
		return l, admitted{}, err
	}
	if a.reg.Type != msgRegister || a.reg.Member == nil {
		return l, admitted{}, fmt.Errorf("sent %q, want a registration", a.reg.Type)
	}
	return l, a, nil
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
