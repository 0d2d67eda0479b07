package exchange

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// Sentinel errors. Every error this package returns for one of these
// conditions matches the sentinel with errors.Is; the typed errors below
// carry the details and match with errors.As.
var (
	// ErrBadMagic: the peer's bytes do not start with Magic.
	ErrBadMagic = errors.New("peer is not rdma-bench")
	// ErrVersionMismatch: the peer speaks another ProtocolVersion (*VersionError).
	ErrVersionMismatch = errors.New("protocol version mismatch")
	// ErrBadFlags: a header has nonzero flags.
	ErrBadFlags = errors.New("unsupported frame flags")
	// ErrTruncated: the stream or buffer ended inside a frame.
	ErrTruncated = errors.New("truncated frame")
	// ErrTooLarge: a payload is larger than MaxPayload (*TooLargeError).
	ErrTooLarge = errors.New("payload too large")
	// ErrUnknownType: a header names no known message type.
	ErrUnknownType = errors.New("unknown message type")
	// ErrUnexpectedType: a valid message of the wrong type (*UnexpectedTypeError).
	ErrUnexpectedType = errors.New("unexpected message type")
	// ErrMalformed: a payload is bad JSON or has invalid values (*MalformedError).
	ErrMalformed = errors.New("malformed message")
	// ErrParamMismatch: the two sides run different workloads (*ParamMismatchError).
	ErrParamMismatch = errors.New("parameter mismatch")
	// ErrPhaseMismatch: the two sides are at different barriers.
	ErrPhaseMismatch = errors.New("barrier phase mismatch")
	// ErrRole: the peer announced an unexpected role.
	ErrRole = errors.New("role mismatch")
	// ErrPeerClosed: the peer closed the connection between frames.
	ErrPeerClosed = errors.New("connection closed by peer")
)

// VersionError reports a frame of another protocol version.
type VersionError struct {
	Local, Peer uint16
}

// Error names both versions.
func (e *VersionError) Error() string {
	return fmt.Sprintf("protocol version mismatch: we speak %d, peer speaks %d", e.Local, e.Peer)
}

// Is reports whether target is ErrVersionMismatch.
func (e *VersionError) Is(target error) bool { return target == ErrVersionMismatch }

// TooLargeError reports a payload larger than the limit.
type TooLargeError struct {
	Size, Limit uint64
}

// Error names the size and the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("payload too large: %d bytes, limit %d", e.Size, e.Limit)
}

// Is reports whether target is ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// UnexpectedTypeError reports a well-formed message of the wrong type.
type UnexpectedTypeError struct {
	Want, Got MsgType
}

// Error reads "expected WANT, got GOT".
func (e *UnexpectedTypeError) Error() string {
	return fmt.Sprintf("expected %s, got %s", e.Want, e.Got)
}

// Is reports whether target is ErrUnexpectedType.
func (e *UnexpectedTypeError) Is(target error) bool { return target == ErrUnexpectedType }

// MalformedError reports a payload that is not valid for its message type:
// bad or non-strict JSON, or out-of-range values.
type MalformedError struct {
	Type MsgType
	Err  error
}

// Error names the message type and the problem.
func (e *MalformedError) Error() string { return fmt.Sprintf("malformed %s: %v", e.Type, e.Err) }

// Unwrap returns the underlying decoding or validation error.
func (e *MalformedError) Unwrap() error { return e.Err }

// Is reports whether target is ErrMalformed.
func (e *MalformedError) Is(target error) bool { return target == ErrMalformed }

// PeerError is a failure reported by the peer in an Error message.
type PeerError struct {
	Message string
}

// Error reads "peer: MESSAGE".
// Error prints the peer's message, sanitized (see Sanitize).
func (e *PeerError) Error() string { return "peer: " + Sanitize(e.Message) }

// OpError reports a failed send or receive on a Conn, naming the message,
// the peer and, for an expired deadline, the timeout. Timeouts match
// os.ErrDeadlineExceeded with errors.Is.
type OpError struct {
	Op      string        // "send" or "recv"
	Type    MsgType       // the message sent or awaited
	Peer    string        // the peer's address
	Timeout time.Duration // the deadline in force
	Err     error
}

// Error reads "waiting for TYPE from PEER: REASON" or "sending TYPE to
// PEER: REASON", a timeout reading "i/o timeout after D".
func (e *OpError) Error() string {
	if e.Op == "send" {
		return fmt.Sprintf("sending %s to %s: %s", e.Type, e.Peer, ioText(e.Err, e.Timeout))
	}
	return fmt.Sprintf("waiting for %s from %s: %s", e.Type, e.Peer, ioText(e.Err, e.Timeout))
}

// Unwrap returns the underlying error.
func (e *OpError) Unwrap() error { return e.Err }

// AddrError reports a failure to connect to or listen on an address, as
// in "connect 192.0.2.1:18515: connection refused".
type AddrError struct {
	Op      string        // "connect" or "listen"
	Addr    string        // host:port
	Timeout time.Duration // the dial timeout, if any
	Err     error
}

// Error returns "OP ADDR: REASON".
func (e *AddrError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Op, e.Addr, ioText(e.Err, e.Timeout))
}

// Unwrap returns the underlying error, so that for example
// errors.Is(err, syscall.ECONNREFUSED) holds.
func (e *AddrError) Unwrap() error { return e.Err }

// ioText renders an error from the net package without its repeated
// "read tcp A->B:" context: the innermost system error, or a timeout with
// its duration.
func ioText(err error, timeout time.Duration) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "<nil>"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("i/o timeout after %v", timeout)
	case errors.As(err, &errno):
		return errno.Error()
	case errors.Is(err, net.ErrClosed):
		return "connection closed"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// isIOError reports whether err is a transport failure (timeout, reset,
// closed connection) rather than a protocol error worth reporting to the
// peer.
func isIOError(err error) bool {
	var op *OpError
	if errors.As(err, &op) {
		err = op.Err
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, ErrPeerClosed) || errors.Is(err, ErrTruncated) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
