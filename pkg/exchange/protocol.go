package exchange

import (
	"errors"
	"fmt"
	"time"
)

// sendErrorTimeout bounds SendError's write.
const sendErrorTimeout = 2 * time.Second

// maxErrorMessage bounds the text SendError sends.
const maxErrorMessage = 64 << 10

// Handshake exchanges Hello messages: the client sends first, the server
// replies. role is RoleClient or RoleServer and decides who sends first in
// this and later exchanges; more (the client's) tells a one-shot server
// that another run follows this one. It returns the peer's Hello. Both sides then run CheckParams on their own
// params and the peer's, so each reports every mismatch from its own point
// of view ("parameter mismatch: size: local 64, peer 4096").
//
// On any failure other than a broken connection, Handshake also sends the
// peer an Error frame describing it before returning; in particular a
// server receiving another protocol version answers with an Error frame in
// its own version, so that the client can report both versions. The
// caller should Close the Conn after an error.
func (c *Conn) Handshake(role string, params map[string]string, more bool) (Hello, error) {
	return c.HandshakeToken(role, params, more, "")
}

// HandshakeToken is Handshake with the client's shared secret in its Hello.
func (c *Conn) HandshakeToken(role string, params map[string]string, more bool, token string) (Hello, error) {
	var peerRole string
	switch role {
	case RoleClient:
		peerRole = RoleServer
	case RoleServer:
		peerRole = RoleClient
	default:
		return Hello{}, fmt.Errorf("handshake: role %q is neither %s nor %s", role, RoleClient, RoleServer)
	}
	c.role = role
	hello := Hello{Role: role, Params: params, More: more && role == RoleClient}
	if role == RoleClient {
		hello.Token = token
	}
	var peer Hello
	if role == RoleClient {
		if err := c.Send(hello); err != nil {
			return Hello{}, c.fail(err)
		}
	}
	if err := c.Recv(MsgHello, &peer); err != nil {
		return Hello{}, c.fail(err)
	}
	if peer.Role != peerRole {
		return Hello{}, c.fail(fmt.Errorf("%w: peer %s is a %s, expected a %s", ErrRole, c.peer, peer.Role, peerRole))
	}
	if role == RoleServer {
		if err := c.Send(hello); err != nil {
			return Hello{}, c.fail(err)
		}
	}
	if err := CheckParams(params, peer.Params); err != nil {
		return Hello{}, c.fail(err)
	}
	return peer, nil
}

// AwaitHello is the first half of a server's handshake: it waits up to d
// for the client's Hello, without answering, so that the server can check
// it (its token, whether the server is free) before it allocates
// anything; AnswerHello or SendError follows.
func (c *Conn) AwaitHello(d time.Duration) (Hello, error) {
	c.role = RoleServer
	var peer Hello
	if err := c.RecvTimeout(MsgHello, &peer, d); err != nil {
		return Hello{}, c.fail(err)
	}
	if peer.Role != RoleClient {
		return Hello{}, c.fail(fmt.Errorf("%w: peer %s is a %s, expected a %s", ErrRole, c.peer, peer.Role, RoleClient))
	}
	return peer, nil
}

// AnswerHello is the second half of a server's handshake: it sends the
// server's Hello and checks params against the client's (see Handshake).
func (c *Conn) AnswerHello(params map[string]string, client Hello) error {
	if err := c.Send(Hello{Role: RoleServer, Params: params}); err != nil {
		return c.fail(err)
	}
	if err := CheckParams(params, client.Params); err != nil {
		return c.fail(err)
	}
	return nil
}

// ExchangeEndpoints sends local and returns the peer's Endpoints; the
// client sends first, the server replies. Both are validated (24-bit QPN
// and PSN, MTU, at most MaxQPs). On failure other than a broken
// connection the peer is sent an Error frame.
func (c *Conn) ExchangeEndpoints(local Endpoints) (peer Endpoints, err error) {
	if err := local.validate(); err != nil {
		err = fmt.Errorf("local endpoints: %w", err)
		c.SendError(err)
		return Endpoints{}, err
	}
	if c.role == RoleClient {
		if err := c.Send(local); err != nil {
			return Endpoints{}, c.fail(err)
		}
	}
	if err := c.Recv(MsgEndpoints, &peer); err != nil {
		return Endpoints{}, c.fail(err)
	}
	if c.role != RoleClient {
		if err := c.Send(local); err != nil {
			return Endpoints{}, c.fail(err)
		}
	}
	return peer, nil
}

// Barrier synchronizes the two sides: each sends Sync{phase} and waits,
// within the per-message timeout, for the peer's. A peer at another phase
// is an error matching ErrPhaseMismatch.
func (c *Conn) Barrier(phase string) error {
	if err := c.Send(Sync{Phase: phase}); err != nil {
		return c.fail(err)
	}
	var peer Sync
	if err := c.Recv(MsgSync, &peer); err != nil {
		return c.fail(err)
	}
	if peer.Phase != phase {
		return c.fail(fmt.Errorf("%w: local %s, peer %s", ErrPhaseMismatch, quoteIfNeeded(phase), quoteIfNeeded(peer.Phase)))
	}
	return nil
}

// SendError tells the peer about err with an Error frame, best-effort: it
// waits at most a few seconds and ignores failures. It is meant as the
// last message before Close, which then gives the peer a moment to read it.
func (c *Conn) SendError(err error) {
	if err == nil {
		return
	}
	msg := err.Error()
	if len(msg) > maxErrorMessage {
		msg = msg[:maxErrorMessage] + "..."
	}
	b, encErr := appendFrame(nil, Error{Message: msg}, c.version)
	if encErr != nil {
		return
	}
	c.sentError.Store(true)
	_ = c.write(MsgError, b, min(c.timeout, sendErrorTimeout))
}

// fail reports err to the peer unless the peer sent it or the connection
// is broken, and returns it.
func (c *Conn) fail(err error) error {
	var pe *PeerError
	if errors.As(err, &pe) || isIOError(err) {
		return err
	}
	// Send the protocol error itself: the "waiting for ... from <our view
	// of the peer's address>" context means nothing to the peer.
	var op *OpError
	if errors.As(err, &op) {
		c.SendError(op.Err)
	} else {
		c.SendError(err)
	}
	return err
}
