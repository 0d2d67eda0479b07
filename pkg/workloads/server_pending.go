package workloads

import (
	"slices"
	"sync"
)

// The handshake queue: every accepted connection holds a slot until its
// hello is read (each is read by its own goroutine, under handshakeWait),
// and the slots are few, so that a flood of connections cannot take the
// server's file descriptors. Which connection gives up its slot to a new
// one decides who a flood can keep out. The rules:
//
//  1. A connection that has begun its hello (exchange.Conn.Heard: its first
//     bytes read, or waiting in the socket and starting with the protocol's
//     magic) is never evicted: a real client sends its hello as soon as it
//     has connected, so once its bytes are in, no number of later
//     connections can cost it its run. Connections that said nothing, or
//     something that is not rdma-bench's, are the ones evicted, oldest
//     first.
//  2. One address holds at most maxPerSource slots: beyond that, a new
//     connection from it evicts one of its own. A flood from one address
//     cannot take the slots of clients from another.
//  3. When every slot is taken, the eviction comes from the address holding
//     the most slots.
//  4. When no connection may be evicted (every slot it could take holds a
//     hello under way), the new connection is closed at once. Only senders
//     of the protocol's magic can bring that about, each for at most the
//     handshake deadline (its first byte) and the idle timeout (the rest),
//     and only within their address's share.
//
// What is left: a flood from a client's own address can still evict that
// client in the moment between its connect and its hello's arrival, if
// maxPerSource connections from that address arrive in that moment.
const (
	maxPending   = 1024
	maxPerSource = 512
)

// pendingConn is a connection in its handshake.
type pendingConn struct {
	conn   heardConn
	source string // the peer's host
}

// heardConn is what the queue needs of a connection (an *exchange.Conn).
type heardConn interface {
	Heard() bool
	Close() error
}

// pendingConns are the connections in their handshake, oldest first.
type pendingConns struct {
	mu       sync.Mutex
	conns    []pendingConn
	bySource map[string]int
}

// add gives c, from source, a slot. It returns the connection to close in
// its place, when there is one: an evicted one, or c itself when no slot
// can be freed for it.
func (p *pendingConns) add(c heardConn, source string) (closed heardConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bySource == nil {
		p.bySource = map[string]int{}
	}
	switch {
	case p.bySource[source] >= maxPerSource:
		closed = p.evict(source)
	case len(p.conns) >= maxPending:
		closed = p.evictLargest()
	}
	if closed == nil && (p.bySource[source] >= maxPerSource || len(p.conns) >= maxPending) {
		return c
	}
	p.conns = append(p.conns, pendingConn{conn: c, source: source})
	p.bySource[source]++
	return closed
}

// evict removes and returns source's oldest connection not heard from, or
// nil if every one of them has begun its hello.
func (p *pendingConns) evict(source string) heardConn {
	for i, pc := range p.conns {
		if pc.source == source && !pc.conn.Heard() {
			p.removeAt(i)
			return pc.conn
		}
	}
	return nil
}

// evictLargest evicts from the source holding the most slots, then the
// next, until one has a connection to evict.
func (p *pendingConns) evictLargest() heardConn {
	tried := map[string]bool{}
	for len(tried) < len(p.bySource) {
		largest, n := "", 0
		for s, k := range p.bySource {
			if !tried[s] && (k > n || (k == n && s < largest)) {
				largest, n = s, k
			}
		}
		if c := p.evict(largest); c != nil {
			return c
		}
		tried[largest] = true
	}
	return nil
}

// remove frees c's slot; it reports false when c held none (it was
// evicted, and its closing logged).
func (p *pendingConns) remove(c heardConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.conns, func(pc pendingConn) bool { return pc.conn == c })
	if i >= 0 {
		p.removeAt(i)
	}
	return i >= 0
}

// removeAt removes the i-th connection; p.mu is held.
func (p *pendingConns) removeAt(i int) {
	s := p.conns[i].source
	if p.bySource[s]--; p.bySource[s] == 0 {
		delete(p.bySource, s)
	}
	p.conns = slices.Delete(p.conns, i, i+1)
}
