package fabric

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// Coordinator frames: a 4-byte magic, a 4-byte big-endian payload length,
// then one JSON message. The magic tells an rdma-bench fabric peer from
// anything else listening on the address; its last byte is the protocol's
// version ([frameVersion]), and a peer of another version is refused by
// name.
//
// This is not pkg/exchange's protocol, by design: exchange is the
// client/server control channel of one measurement, typed frames with a
// 16-bit version decoded strictly, between two processes that may be of
// different builds. The coordinator's frames carry a handful of messages
// among the ranks of one sweep, which all run the same binary (rendezvous
// checks it), under a token and with small bounds before a peer is a
// member (auth.go); folding the two would tie the ranks' protocol to the
// measurement's for no gain.
const (
	frameVersion = '1'
	frameMagic   = "RBF" + string(frameVersion)
	frameHeader  = 8
	// maxFrame bounds a payload, in bytes; a pair's result is the largest.
	maxFrame = 16 << 20
)

// Smaller bounds apply before a connection is known to be a member (see
// auth.go): a stranger's frame costs rank 0 at most these many bytes.
const (
	// authFrame bounds the frames before a peer has proven the token:
	// the challenge, the proof and the acknowledgement.
	authFrame = 4 << 10
	// registerFrame bounds a registration (a member's parameters: a few
	// KB).
	registerFrame = 1 << 20
)

// link is one coordinator connection. send and recv may run at the same
// time (one of each); each has its own deadline.
type link struct {
	conn net.Conn
	rd   *bufio.Reader
	peer string // who is at the other end, for errors
	// limit bounds the payload of the next frames recv reads.
	limit int
	wmu   sync.Mutex
}

func newLink(conn net.Conn, peer string) *link {
	return &link{conn: conn, rd: bufio.NewReaderSize(conn, 4096), peer: peer, limit: maxFrame}
}

// Close closes the connection; a blocked send or recv returns.
func (l *link) Close() error { return l.conn.Close() }

// send writes m within timeout, or until ctx is done.
func (l *link) send(ctx context.Context, m *message, timeout time.Duration) error {
	buf, err := encodeFrame(m)
	if err != nil {
		return err
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	err = l.bounded(ctx, timeout, l.conn.SetWriteDeadline, func() error {
		_, err := l.conn.Write(buf)
		return err
	})
	if err != nil {
		return fmt.Errorf("send %s to %s: %w", m.Type, l.peer, err)
	}
	return nil
}

// recv reads one message of at most l.limit bytes within timeout, or
// until ctx is done.
func (l *link) recv(ctx context.Context, timeout time.Duration) (*message, error) {
	var m *message
	err := l.bounded(ctx, timeout, l.conn.SetReadDeadline, func() error {
		var err error
		m, err = readFrame(l.rd, l.limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("from %s: %w", l.peer, err)
	}
	return m, nil
}

// encodeFrame is m as one frame.
func encodeFrame(m *message) ([]byte, error) {
	payload, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode %s message: %w", m.Type, err)
	}
	if len(payload) > maxFrame {
		return nil, fmt.Errorf("%s message of %d bytes: at most %d fit a frame", m.Type, len(payload), maxFrame)
	}
	buf := make([]byte, frameHeader, frameHeader+len(payload))
	copy(buf, frameMagic)
	binary.BigEndian.PutUint32(buf[4:], uint32(len(payload)))
	return append(buf, payload...), nil
}

// readFrame reads one frame of at most limit payload bytes from r. The
// payload's buffer follows the bytes that arrive, not the length
// announced (see readPayload).
func readFrame(r io.Reader, limit int) (*message, error) {
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	if string(hdr[:3]) == frameMagic[:3] && hdr[3] != frameVersion && hdr[3] >= '0' && hdr[3] <= '9' {
		return nil, fmt.Errorf("peer speaks fabric protocol version %c, this rank %c: run the same rdma-bench on every rank", hdr[3], frameVersion)
	}
	if string(hdr[:4]) != frameMagic {
		return nil, fmt.Errorf("peer is not an rdma-bench fabric process (frame starts %q, want %q)", hdr[:4], frameMagic)
	}
	n := binary.BigEndian.Uint32(hdr[4:])
	if int64(n) > int64(limit) {
		return nil, fmt.Errorf("frame of %d bytes: at most %d accepted here", n, limit)
	}
	payload, err := readPayload(r, int(n))
	if err != nil {
		return nil, err
	}
	var m message
	if err := json.Unmarshal(payload, &m); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	if m.Type == "" {
		return nil, errors.New("message without a type")
	}
	return &m, nil
}

// firstChunk is what readPayload allocates before the peer has sent
// anything.
const firstChunk = 64 << 10

// readPayload reads n bytes: the first firstChunk into a buffer of their
// own, the rest once they come into one of n bytes. A peer's
// announcement alone costs rank 0 at most firstChunk.
func readPayload(r io.Reader, n int) ([]byte, error) {
	first := make([]byte, min(n, firstChunk))
	if _, err := io.ReadFull(r, first); err != nil {
		return nil, err
	}
	if n == len(first) {
		return first, nil
	}
	payload := make([]byte, n)
	copy(payload, first)
	if _, err := io.ReadFull(r, payload[len(first):]); err != nil {
		return nil, err
	}
	return payload, nil
}

// bounded runs op with setDeadline set timeout from now; cancelling ctx
// wakes op. The error says which bound ended it.
func (l *link) bounded(ctx context.Context, timeout time.Duration, setDeadline func(time.Time) error, op func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := setDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = setDeadline(time.Unix(1, 0))
	})
	err := op()
	if !stop() {
		<-fired
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("timed out after %s: %w", fmtDuration(timeout), err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("connection closed: %w", err)
	}
	return err
}

// fmtDuration writes whole seconds as "60s" and anything else as
// time.Duration does.
func fmtDuration(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
