package workloads

import (
	"fmt"
	"sync"
	"time"
)

// serving is a server's state across connections: who holds it.
type serving struct {
	sv     *Server
	log    *serverLog
	ended  chan error // a one-shot server's run is over
	cancel func()

	mu       sync.Mutex
	freed    chan struct{} // closed and replaced whenever a run ends
	busy     bool
	holder   string      // the client whose run is under way
	reserved string      // a one-shot server's sweep: the host whose next point is awaited
	timer    *time.Timer // ends a reservation not taken up in time
	ran      bool        // a run began (a one-shot server's sweep is under way)
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
	st.free()
	st.ran = true
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

// refused frees the server claimed by a client it then refused before its
// run began (parameters, memory, a handshake that broke). A one-shot
// server with Retry keeps waiting for a client it can serve, unless the
// client was in the middle of its sweep, whose runs then end with err;
// without Retry the refusal ends it.
func (st *serving) refused(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.free()
	if !st.sv.Persistent && (st.ran || !st.sv.Retry) {
		st.end(err)
	}
}

// free marks the server free and wakes the clients waiting to claim it;
// st.mu is held.
func (st *serving) free() {
	st.busy = false
	if st.freed != nil {
		close(st.freed)
		st.freed = nil
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
