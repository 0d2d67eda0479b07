// Package exchange is the out-of-band TCP exchange between an rdma-bench
// server and client: the analogue of perftest's TCP exchange of queue pair
// information, hardened against peers that are slow, silent, buggy or not
// rdma-bench at all.
//
// # Wire format
//
// Every message is one frame: a fixed 12-byte big-endian header followed by
// a JSON payload.
//
//	offset size field
//	0      4    magic "RDMB"
//	4      2    protocol version (ProtocolVersion)
//	6      1    message type (MsgType)
//	7      1    flags, must be 0
//	8      4    payload length, at most MaxPayload
//	12     n    payload: exactly one JSON object, no unknown fields
//
// The header is checked before the payload is allocated: magic first (is the
// peer rdma-bench at all?), then the version (the rest of the header may
// differ in another version), then flags, type and length.
//
// # Conversation
//
//	client                         server
//	Hello{role: client}    --->
//	                       <---    Hello{role: server}
//	Endpoints              --->
//	                       <---    Endpoints
//	Sync{phase}            <-->    Sync{phase}       (Barrier, any number)
//	                       <---    Result            (server's figures)
//
// Either side may send an Error frame instead of any message; the receiver's
// Recv then returns a *PeerError. Every blocking read and write has a
// deadline (see Conn.SetTimeout and Conn.RecvTimeout), so a silent peer
// produces an error naming what was awaited, never a hang.
package exchange

import "time"

const (
	// DefaultPort is the TCP port the server listens on unless told
	// otherwise; it is perftest's default port, 18515.
	DefaultPort = 18515

	// ProtocolVersion is the version of the wire format this package
	// speaks, carried in every frame header.
	ProtocolVersion = 2

	// Magic is the first four bytes of every frame.
	Magic = "RDMB"

	// HeaderSize is the size in bytes of a frame header.
	HeaderSize = 12

	// MaxPayload is the largest payload accepted or sent, in bytes; a
	// larger length in a header is rejected before allocating.
	MaxPayload = 1 << 20

	// DefaultTimeout is a Conn's default per-message deadline.
	DefaultTimeout = 10 * time.Second

	// DefaultDialTimeout bounds Dial when it is given no timeout.
	DefaultDialTimeout = 10 * time.Second
)

// Roles passed to Conn.Handshake and carried in Hello.
const (
	RoleClient = "client"
	RoleServer = "server"
)
