package workloads

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
)

// Limits on connections that have not shown they are clients.
const (
	// maxPending bounds the connections in their handshake at once: a new
	// one beyond it closes the one that has waited longest, so that
	// connections that say nothing cannot keep a real client out.
	maxPending = 64
	// handshakeWait bounds the wait for a client's hello (and the idle
	// timeout, if shorter), so that connections that say nothing cannot
	// keep a real client out.
	handshakeWait = 5 * time.Second
	// claimWait is how long a client waits for a run that is ending (the
	// previous point of its own sweep, say) before it is told the server
	// is busy.
	claimWait = time.Second
)

// Server serves clients, RDMA and TCP workloads alike, one run at a time:
// each says what to run; the server checks its token, what it asks for
// against the parameters set on the server's command line, and the
// memory it needs, before allocating anything, then runs its side.
// Connections are handled as they come: one that arrives during a run is
// told the server is busy, one that says nothing within the handshake
// deadline is dropped.
type Server struct {
	// Local holds the server's own settings: device, port, GID, CPU,
	// memory limit and token.
	Local Local
	// Explicit are the shared parameters set on the server's command
	// line, in their wire form (Spec.Explicit): a client asking for other
	// values is refused, both values named.
	Explicit map[string]string
	// Persistent serves one run after another until ctx ends; otherwise
	// the server ends after the run it served (a whole sweep).
	Persistent bool
	// Log receives one line per client; nil discards it.
	Log io.Writer
}

// Serve accepts clients on ln until ctx ends (persistent) or the run it
// served, a whole sweep, is over: then it returns that run's error.
//
// Equivalent to: `ib_write_lat` (server side), `sockperf server`, `iperf3 -s`.
func (sv *Server) Serve(ctx context.Context, ln *exchange.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	st := &serving{sv: sv, ended: make(chan error, 1), cancel: cancel}
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: the handlers end with ctx
	defer cancel()
	pending := &pendingConns{}
	for {
		conn, err := ln.Accept(ctx)
		if err != nil {
			select {
			case e := <-st.ended:
				return e
			default:
			}
			if ctx.Err() != nil && sv.Persistent {
				return nil
			}
			return err
		}
		if old := pending.add(conn); old != nil {
			sv.logf("dropped a connection from %s: silent while %d others waited", old.RemoteAddr(), maxPending)
			old.Close()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.handle(ctx, conn, ln.Port(), func() { pending.remove(conn) })
		}()
	}
}

// pendingConns are the connections in their handshake, oldest first.
type pendingConns struct {
	mu    sync.Mutex
	conns []*exchange.Conn
}

// add adds c; beyond maxPending it returns the oldest, removed, to close.
func (p *pendingConns) add(c *exchange.Conn) (oldest *exchange.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.conns) >= maxPending {
		oldest, p.conns = p.conns[0], p.conns[1:]
	}
	p.conns = append(p.conns, c)
	return oldest
}

func (p *pendingConns) remove(c *exchange.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.conns, c); i >= 0 {
		p.conns = slices.Delete(p.conns, i, i+1)
	}
}

func (sv *Server) logf(format string, a ...any) {
	if sv.Log != nil {
		fmt.Fprintf(sv.Log, format+"\n", a...)
	}
}

// serving is a server's state across connections: who holds it.
type serving struct {
	sv     *Server
	ended  chan error // a one-shot server's run is over
	cancel func()

	mu       sync.Mutex
	freed    chan struct{} // closed and replaced whenever a run ends
	busy     bool
	holder   string      // the client whose run is under way
	reserved string      // a one-shot server's sweep: the host whose next point is awaited
	timer    *time.Timer // ends a reservation not taken up in time
}

// claim makes host the server's holder, unless a run is under way (for
// longer than claimWait) or a sweep of another host is awaited; it returns
// who holds the server.
func (st *serving) claim(host string) (string, bool) {
	deadline := time.After(claimWait)
	for {
		who, ok, freed := st.tryClaim(host)
		if ok || freed == nil {
			return who, ok
		}
		select {
		case <-freed:
		case <-deadline:
			return who, false
		}
	}
}

// tryClaim claims the server for host if it is free; otherwise freed, when
// not nil, is closed when the run under way ends.
func (st *serving) tryClaim(host string) (who string, ok bool, freed <-chan struct{}) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.freed == nil {
		st.freed = make(chan struct{})
	}
	if st.busy {
		return st.holder, false, st.freed
	}
	if st.reserved != "" && st.reserved != host {
		return st.reserved + " (between two points of its sweep)", false, nil
	}
	if st.timer != nil {
		st.timer.Stop()
	}
	st.busy, st.holder, st.reserved = true, host, ""
	return host, true, nil
}

// done ends host's run: a persistent server is free again; a one-shot
// server ends, or, when the client announced more, waits up to idle for
// the sweep's next point.
func (st *serving) done(host string, more bool, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.busy = false
	if st.freed != nil {
		close(st.freed)
		st.freed = nil
	}
	switch {
	case st.sv.Persistent:
	case err != nil || !more:
		st.end(err)
	default:
		st.reserved = host
		idle := st.sv.Local.IdleTimeout
		st.timer = time.AfterFunc(idle, func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			if st.reserved == host {
				st.end(fmt.Errorf("the client %s announced another run but did not come back within %v", host, idle))
			}
		})
	}
}

// end ends a one-shot server with err; st.mu is held.
func (st *serving) end(err error) {
	select {
	case st.ended <- err:
	default:
	}
	st.cancel()
}

// handle serves one connection: its handshake, then its run, or a refusal.
// released frees the connection's handshake slot.
func (st *serving) handle(ctx context.Context, conn *exchange.Conn, port int, released func()) {
	sv := st.sv
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	from := conn.RemoteAddr()
	conn.SetTimeout(sv.Local.IdleTimeout)
	hello, err := conn.AwaitHello(min(sv.Local.IdleTimeout, handshakeWait))
	released()
	if err != nil {
		if ctx.Err() == nil {
			sv.logf("dropped a connection from %s: %s", from, exchange.Sanitize(err.Error()))
		}
		return
	}
	if !tokenOK(sv.Local.Token, hello.Token) {
		conn.SendError(errors.New("refused: this server requires its token (--token, or RDMA_BENCH_TOKEN)"))
		sv.logf("refused a client from %s: no or a wrong token", from)
		return
	}
	host := hostOf(from)
	if who, ok := st.claim(host); !ok {
		conn.SendError(fmt.Errorf("busy: the server is serving %s; try again when it is done", who))
		sv.logf("refused a client from %s: busy with %s", from, who)
		return
	}
	what, err := sv.serveOne(ctx, conn, hello, port)
	if err != nil {
		sv.logf("%s from %s failed: %s", what, from, exchange.Sanitize(err.Error()))
	} else {
		sv.logf("served %s to %s", what, from)
	}
	st.done(host, hello.More, err)
}

// serveOne checks what the client asks for and runs it; what names the
// run for the log (only once it is known to be valid).
func (sv *Server) serveOne(ctx context.Context, conn *exchange.Conn, hello exchange.Hello, port int) (what string, err error) {
	what = "a run"
	spec, err := DecodeSpec(hello.Params)
	if err == nil {
		spec, _, err = spec.Resolve(nil)
	}
	if err == nil {
		what = fmt.Sprintf("%s %d bytes", spec.Workload, spec.Size)
		err = sv.Local.CheckCPUs(spec.threads())
	}
	if err == nil {
		err = sv.Local.CheckMemory(spec.Memory(false, 1), "server")
	}
	if err != nil {
		err = fmt.Errorf("client asked for a run this server refuses: %w", err)
		conn.SendError(err)
		return what, err
	}
	if err := conn.AnswerHello(sv.Explicit, hello); err != nil {
		return what, err
	}
	w, _ := Lookup(spec.Workload)
	_, err = newSession(spec, sv.Local, w, server, conn, port).run(ctx)
	return what, err
}

// tokenOK compares the client's token with the server's in constant time;
// a server without a token takes any client.
func tokenOK(want, got string) bool {
	return want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// hostOf is the host part of a peer's address.
func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	return a.String()
}
