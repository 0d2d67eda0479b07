package exchange

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Listener accepts exchange connections from clients.
type Listener struct {
	ln net.Listener
}

// Listen listens on TCP port port (0 picks a free one) of address bind
// ("" for every address; IPv6 literals need no brackets).
func Listen(bind string, port int) (*Listener, error) {
	addr := net.JoinHostPort(bind, strconv.Itoa(port))
	if port < 0 || port > 65535 {
		return nil, &AddrError{Op: "listen", Addr: addr, Err: fmt.Errorf("port %d out of range 0-65535", port)}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &AddrError{Op: "listen", Addr: addr, Err: err}
	}
	return &Listener{ln: ln}, nil
}

// Addr returns the address listened on.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Port returns the TCP port listened on, useful after Listen with port 0.
func (l *Listener) Port() int {
	if a, ok := l.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Close stops listening; a blocked Accept returns an error.
func (l *Listener) Close() error { return l.ln.Close() }

// Accept waits for a client until ctx is done and returns its connection,
// whose Role is RoleServer. The error of a done ctx wraps ctx.Err().
func (l *Listener) Accept(ctx context.Context) (*Conn, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	type deadliner interface{ SetDeadline(time.Time) error }
	dl, ok := l.ln.(deadliner)
	if ok {
		// Clear a wake-up deadline left by an earlier Accept; ctx alone
		// decides when to give up, so its error is the one reported.
		if err := dl.SetDeadline(time.Time{}); err != nil {
			return nil, l.acceptError(err)
		}
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		if ok {
			_ = dl.SetDeadline(time.Unix(1, 0)) // wake Accept
		}
	})
	nc, err := l.ln.Accept()
	if !stop() {
		<-fired // the wake-up deadline is set; the next Accept resets it
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, l.acceptError(err)
	}
	if ctx.Err() != nil {
		nc.Close()
		return nil, l.acceptError(ctx.Err())
	}
	return newConn(nc, RoleServer), nil
}

func (l *Listener) acceptError(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err // drop the repeated "accept tcp ADDR:" context
	}
	return fmt.Errorf("accept on %s: %w", l.ln.Addr(), err)
}

// Dial connects to an exchange server at host:port, giving up after
// timeout (DefaultDialTimeout if timeout <= 0) or when ctx is done. The
// returned Conn's Role is RoleClient and its per-message timeout
// DefaultTimeout. Errors are an *AddrError reading for example "connect
// 192.0.2.1:18515: connection refused", and wrap the system error
// (errors.Is(err, syscall.ECONNREFUSED)).
func Dial(ctx context.Context, host string, port int, timeout time.Duration) (*Conn, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	if port <= 0 || port > 65535 {
		return nil, &AddrError{Op: "connect", Addr: addr, Err: fmt.Errorf("port %d out of range 1-65535", port)}
	}
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &AddrError{Op: "connect", Addr: addr, Timeout: timeout, Err: err}
	}
	return newConn(nc, RoleClient), nil
}
