package exchange

import (
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// closeLinger bounds how long Close waits for the peer to read an Error
// frame we sent (see Close).
const closeLinger = time.Second

// Conn is one side of an exchange connection. Every blocking read and
// write has a deadline: the per-message timeout (DefaultTimeout unless
// changed with SetTimeout) or the one given to RecvTimeout.
//
// One goroutine may receive while others send (sends are serialized);
// Close may be called from any goroutine to abort a blocked call (for
// example from context.AfterFunc).
type Conn struct {
	wmu     sync.Mutex // serializes writes
	nc      net.Conn
	role    string
	peer    string
	version uint16 // ProtocolVersion; tests change it to play another version
	timeout time.Duration

	sentError atomic.Bool
	heard     atomic.Bool // a frame's first bytes were read (see Heard)
	closeOnce sync.Once
	closeErr  error
}

// newConn wraps nc; role is the side nc was made on (RoleClient for a
// dialed connection).
func newConn(nc net.Conn, role string) *Conn {
	return &Conn{
		nc:      nc,
		role:    role,
		peer:    nc.RemoteAddr().String(),
		version: ProtocolVersion,
		timeout: DefaultTimeout,
	}
}

// SetTimeout sets the per-message deadline of every later send and
// receive; d <= 0 restores DefaultTimeout.
func (c *Conn) SetTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultTimeout
	}
	c.timeout = d
}

// Timeout returns the per-message deadline.
func (c *Conn) Timeout() time.Duration { return c.timeout }

// Role returns RoleClient for a dialed Conn and RoleServer for an accepted
// one, or the role last given to Handshake.
func (c *Conn) Role() string { return c.role }

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }

// LocalAddr returns the local address.
func (c *Conn) LocalAddr() net.Addr { return c.nc.LocalAddr() }

// Send encodes m and writes it within the per-message timeout.
func (c *Conn) Send(m Message) error {
	b, err := appendFrame(nil, m, c.version)
	if err != nil {
		return err
	}
	return c.write(m.Type(), b, c.timeout)
}

func (c *Conn) write(t MsgType, b []byte, d time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.nc.SetWriteDeadline(time.Now().Add(d)); err != nil {
		return &OpError{Op: "send", Type: t, Peer: c.peer, Timeout: d, Err: err}
	}
	if _, err := c.nc.Write(b); err != nil {
		return &OpError{Op: "send", Type: t, Peer: c.peer, Timeout: d, Err: err}
	}
	return nil
}

// Recv receives a message of type typ into v, a pointer to the matching
// struct (*Hello for MsgHello, ...) or nil to discard it, within the
// per-message timeout. See RecvTimeout.
func (c *Conn) Recv(typ MsgType, v any) error {
	return c.RecvTimeout(typ, v, c.timeout)
}

// RecvTimeout is Recv waiting up to d for the message to start, for long
// waits such as a run's result; the rest of the frame must then arrive
// within the per-message timeout. d <= 0 means the per-message timeout.
//
// An Error frame from the peer is returned as a *PeerError. Other failures
// are an *OpError naming the awaited message and the peer, wrapping the
// protocol error (see the Err variables) or the transport's error; an
// expired deadline matches os.ErrDeadlineExceeded.
func (c *Conn) RecvTimeout(typ MsgType, v any, d time.Duration) error {
	if d <= 0 {
		d = c.timeout
	}
	if vt, ok := targetType(v); v != nil && (!ok || vt != typ) {
		return fmt.Errorf("cannot receive %s into %T", typ, v)
	}
	m, err := c.readMessage(typ, d)
	if err != nil {
		return err
	}
	assign(v, m)
	return nil
}

// readMessage reads one frame, expecting type want, waiting d for its
// header and the per-message timeout for its payload.
func (c *Conn) readMessage(want MsgType, d time.Duration) (Message, error) {
	opErr := func(err error, d time.Duration) error {
		return &OpError{Op: "recv", Type: want, Peer: c.peer, Timeout: d, Err: err}
	}
	if err := c.nc.SetReadDeadline(time.Now().Add(d)); err != nil {
		return nil, opErr(err, d)
	}
	r := &deadlineReader{c: c, first: d}
	h, payload, err := readFrame(r, c.version)
	if err != nil {
		return nil, opErr(err, r.current)
	}
	m := newMessage(h.typ)
	if err := decodePayload(h.typ, payload, m); err != nil {
		return nil, opErr(err, d)
	}
	if e, ok := m.(*Error); ok {
		return nil, &PeerError{Message: e.Message}
	}
	if h.typ != want {
		return nil, opErr(&UnexpectedTypeError{Want: want, Got: h.typ}, d)
	}
	return m, nil
}

// deadlineReader reads from c's connection under the deadline already
// set for the frame's first byte (first), then gives the rest of the frame
// a fresh per-message timeout. current is the timeout in force.
type deadlineReader struct {
	c       *Conn
	first   time.Duration
	current time.Duration
	started bool
}

func (r *deadlineReader) Read(p []byte) (int, error) {
	if !r.started {
		r.current = r.first
	}
	n, err := r.c.nc.Read(p)
	if n > 0 && !r.started {
		r.started = true
		r.c.heard.Store(true)
		r.current = r.c.timeout
		if derr := r.c.nc.SetReadDeadline(time.Now().Add(r.current)); derr != nil && err == nil {
			err = derr
		}
	}
	return n, err
}

// assign stores message m (a pointer from newMessage) into v, a pointer of
// the same type or nil.
func assign(v any, m Message) {
	switch d := v.(type) {
	case *Hello:
		*d = *m.(*Hello)
	case *Endpoints:
		*d = *m.(*Endpoints)
	case *Sync:
		*d = *m.(*Sync)
	case *Result:
		*d = *m.(*Result)
	case *Error:
		*d = *m.(*Error)
	}
}

// Close closes the connection; it is idempotent. If an Error frame was
// sent, Close first shuts down the sending side and waits briefly (up to
// one second) for the peer to close, so that the frame is not lost to a
// reset caused by unread input.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		if c.sentError.Load() {
			c.linger()
		}
		c.closeErr = c.nc.Close()
	})
	return c.closeErr
}

func (c *Conn) linger() {
	cw, ok := c.nc.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	if c.nc.SetReadDeadline(time.Now().Add(closeLinger)) != nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c.nc, 4*MaxPayload))
}
