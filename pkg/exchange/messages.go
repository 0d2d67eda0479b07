package exchange

import (
	"encoding/json"
	"fmt"
)

// MsgType is the message type carried in a frame header.
type MsgType uint8

// Message types. Zero is never valid.
const (
	MsgHello     MsgType = 1 // Hello
	MsgEndpoints MsgType = 2 // Endpoints
	MsgSync      MsgType = 3 // Sync
	MsgResult    MsgType = 4 // Result
	MsgError     MsgType = 5 // Error
)

var msgNames = [...]string{
	MsgHello:     "hello",
	MsgEndpoints: "endpoints",
	MsgSync:      "sync",
	MsgResult:    "result",
	MsgError:     "error",
}

// String returns the type's lower-case name, or "message type N" for an
// unknown type.
func (t MsgType) String() string {
	if t.known() {
		return msgNames[t]
	}
	return fmt.Sprintf("message type %d", uint8(t))
}

func (t MsgType) known() bool { return t >= MsgHello && t <= MsgError }

// Message is one of Hello, Endpoints, Sync, Result and Error (or a pointer
// to one).
type Message interface {
	// Type returns the message's type for the frame header.
	Type() MsgType
	validate() error
}

// Hello opens the conversation: the client sends it first and the server
// answers with its own. The protocol version is in the frame header.
type Hello struct {
	// Role is RoleClient or RoleServer.
	Role string `json:"role"`
	// Params are the workload's parameters ("workload", "transport",
	// "size", "iterations", "duration", "tx_depth", "mtu", "qps", ...);
	// see CheckParams.
	Params map[string]string `json:"params"`
	// More, from a client, says another run follows this one (the next
	// size of a sweep), so a one-shot server keeps serving.
	More bool `json:"more,omitempty"`
	// Token, from a client, is the shared secret a server may require
	// before it allocates anything.
	Token string `json:"token,omitempty"`
}

// Type returns MsgHello.
func (Hello) Type() MsgType { return MsgHello }

func (m Hello) validate() error {
	if m.Role != RoleClient && m.Role != RoleServer {
		return fmt.Errorf("role %q is neither %s nor %s", m.Role, RoleClient, RoleServer)
	}
	return nil
}

// Sync is a barrier message: both sides send it and wait for the peer's,
// with the same Phase.
type Sync struct {
	Phase string `json:"phase"`
}

// Type returns MsgSync.
func (Sync) Type() MsgType { return MsgSync }

func (Sync) validate() error { return nil }

// Result carries the server's figures back to the client; the payload is
// opaque to this package but must be valid JSON. Decoding stores it
// compacted.
type Result struct {
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Type returns MsgResult.
func (Result) Type() MsgType { return MsgResult }

func (Result) validate() error { return nil }

// Error reports a failure to the peer, whose Recv returns it as a
// *PeerError.
type Error struct {
	Message string `json:"message"`
}

// Type returns MsgError.
func (Error) Type() MsgType { return MsgError }

func (Error) validate() error { return nil }

// newMessage returns a pointer to a zero message of type t, or nil.
func newMessage(t MsgType) Message {
	switch t {
	case MsgHello:
		return new(Hello)
	case MsgEndpoints:
		return new(Endpoints)
	case MsgSync:
		return new(Sync)
	case MsgResult:
		return new(Result)
	case MsgError:
		return new(Error)
	}
	return nil
}

// targetType returns the message type that v, a pointer to a message
// struct, can receive.
func targetType(v any) (MsgType, bool) {
	switch v.(type) {
	case *Hello:
		return MsgHello, true
	case *Endpoints:
		return MsgEndpoints, true
	case *Sync:
		return MsgSync, true
	case *Result:
		return MsgResult, true
	case *Error:
		return MsgError, true
	}
	return 0, false
}
