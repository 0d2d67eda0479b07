package workloads

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

const (
	// handshakeWait bounds the wait for a client's hello to begin (and the
	// idle timeout, if shorter); see server_pending.go for the slots the
	// connections wait in.
	handshakeWait = 5 * time.Second
	// claimWait is how long a client waits for a run that is ending (the
	// previous point of its own sweep, say) before it is told the server
	// is busy.
	claimWait = time.Second
	// maxAcceptBackoff bounds the pause after the listener fails (out of
	// file descriptors, say) before it is tried again.
	maxAcceptBackoff = time.Second
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
	// Retry keeps a one-shot server waiting after it refused a client
	// before its run began (parameters, CPUs, memory, a handshake that
	// broke): one-shot means one measured run, and the next client may be
	// the right one. Without it the refusal ends the server, as in-process
	// pairs want (loopback, fabric), whose one client does not come back.
	Retry bool
	// Log receives one line per client, at most a few a second of each
	// kind (see serverLog); nil discards it.
	Log io.Writer
}

// Serve accepts clients on ln until ctx ends (persistent) or the run it
// served, a whole sweep, is over: then it returns that run's error (see
// Retry for a client refused before its run began).
//
// Equivalent to: `ib_write_lat` (server side), `sockperf server`, `iperf3 -s`.
func (sv *Server) Serve(ctx context.Context, ln *exchange.Listener) error {
	if !sv.Local.loopbackServer {
		// Before any client waits on this side (engine.PrefaultMappings).
		engine.PrefaultMappings()
	}
	ctx, cancel := context.WithCancel(ctx)
	log := newServerLog(sv.Log)
	defer log.close()
	st := &serving{sv: sv, log: log, ended: make(chan error, 1), cancel: cancel}
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: the handlers end with ctx
	defer cancel()
	pending := &pendingConns{}
	backoff := time.Duration(0)
	for {
		conn, err := ln.Accept(ctx)
		if err != nil && ctx.Err() == nil && temporary(err) {
			// Out of file descriptors or buffers: wait for handlers to
			// release some, as net/http does, rather than end.
			backoff = min(max(2*backoff, 5*time.Millisecond), maxAcceptBackoff)
			log.printf("accept", "", "cannot accept a connection: %s; retrying in %v", exchange.Sanitize(err.Error()), backoff)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			continue
		}
		if err != nil {
			// The run's error, once every handler has ended: a one-shot
			// server's run ends the server by cancelling ctx.
			done := ctx.Err() != nil
			cancel()
			wg.Wait()
			select {
			case e := <-st.ended:
				return e
			default:
			}
			if done && sv.Persistent {
				return nil
			}
			return err
		}
		backoff = 0
		from := conn.RemoteAddr()
		if old := pending.add(conn, hostOf(from)); old != nil {
			oc := old.(*exchange.Conn)
			if oc == conn {
				log.printf("dropped", hostOf(from), "dropped a connection from %s: every handshake slot it could take holds a hello under way", from)
			} else {
				log.printf("dropped", hostOf(oc.RemoteAddr()), "dropped a connection from %s: it had not begun a hello when its handshake slot was needed", oc.RemoteAddr())
			}
			oc.Close()
			if oc == conn {
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.handle(ctx, conn, ln.Port(), func() bool { return pending.remove(conn) })
		}()
	}
}

// temporary reports whether an accept error is a shortage that passes
// (file descriptors, buffers, memory) rather than a closed listener.
func temporary(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// handle serves one connection: its handshake, then its run, or a refusal.
// released frees the connection's handshake slot, and reports false if it
// had been evicted (and the eviction logged).
func (st *serving) handle(ctx context.Context, conn *exchange.Conn, port int, released func() bool) {
	sv, log := st.sv, st.log
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	from := conn.RemoteAddr()
	host := hostOf(from)
	conn.SetTimeout(sv.Local.IdleTimeout)
	hello, err := conn.AwaitHello(min(sv.Local.IdleTimeout, handshakeWait))
	evicted := !released()
	if err != nil {
		if ctx.Err() == nil && !evicted {
			log.printf("dropped", host, "dropped a connection from %s: %s", from, exchange.Sanitize(err.Error()))
		}
		return
	}
	if !tokenOK(sv.Local.Token, hello.Token) {
		conn.SendError(errors.New("refused: this server requires its token (--token, or RDMA_BENCH_TOKEN)"))
		log.printf("refused", host, "refused a client from %s: no or a wrong token", from)
		return
	}
	if who, ok := st.claim(host); !ok {
		conn.SendError(fmt.Errorf("busy: the server is serving %s; try again when it is done", who))
		log.printf("refused", host, "refused a client from %s: busy with %s", from, who)
		return
	}
	what, ran, err := sv.serveOne(ctx, conn, hello, port)
	switch {
	case !ran:
		log.printf("refused", host, "refused a client from %s: %s", from, exchange.Sanitize(err.Error()))
		st.refused(err)
		return
	case err != nil:
		log.printf("failed", host, "%s from %s failed: %s", what, from, exchange.Sanitize(err.Error()))
	default:
		log.printf("served", host, "served %s to %s", what, from)
	}
	st.done(host, hello.More, err)
}

// serveOne checks what the client asks for and runs it; what names the
// run for the log (only once it is known to be valid), ran says whether
// the run began (when not, err says why the client was refused).
func (sv *Server) serveOne(ctx context.Context, conn *exchange.Conn, hello exchange.Hello, port int) (what string, ran bool, err error) {
	what = "a run"
	asked, err := point.DecodeSpec(hello.Params)
	var spec point.Resolved
	if err == nil {
		spec, _, err = Resolve(asked, nil)
	}
	if err == nil {
		what = fmt.Sprintf("%s %d bytes", spec.Workload, spec.Size)
		err = sv.Local.CheckCPUs(spec.ThreadCount())
	}
	if err == nil {
		err = sv.Local.CheckMemory(MemoryOf(spec, false, 1), "server")
	}
	if err != nil {
		err = fmt.Errorf("client asked for a run this server refuses: %w", err)
		conn.SendError(err)
		return what, false, err
	}
	if err := conn.AnswerHello(sv.Explicit, hello); err != nil {
		return what, false, err
	}
	w, _ := catalog.Lookup(spec.Workload)
	_, err = newSession(spec, sv.Local, w, server, conn, port).run(ctx)
	return what, true, err
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
