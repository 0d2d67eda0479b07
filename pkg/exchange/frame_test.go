package exchange

// The frame codec of one message at a time, which the tests use to build
// and read frames; the binary's connections (Conn) frame messages
// themselves.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// Encode returns m's frame in ProtocolVersion. It fails, without panicking,
// for invalid field values and payloads over MaxPayload.
func Encode(m Message) ([]byte, error) {
	return appendFrame(nil, m, ProtocolVersion)
}

// Decode decodes exactly one frame from b, which must hold nothing else.
// An Error frame decodes to an Error value, not a *PeerError.
func Decode(b []byte) (Message, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrTruncated)
	}
	m, err := ReadMessage(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if n := frameLen(b); n < len(b) {
		return nil, fmt.Errorf("%d bytes of trailing data after the frame", len(b)-n)
	}
	return m, nil
}

// frameLen returns the length of the frame at the start of b, which has
// already been decoded.
func frameLen(b []byte) int {
	return HeaderSize + int(binary.BigEndian.Uint32(b[8:12]))
}

// ReadMessage reads and decodes one frame from r.
func ReadMessage(r io.Reader) (Message, error) {
	h, payload, err := readFrame(r, ProtocolVersion)
	if err != nil {
		return nil, err
	}
	m := newMessage(h.typ)
	if err := decodePayload(h.typ, payload, m); err != nil {
		return nil, err
	}
	return deref(m), nil
}

// WriteMessage encodes m and writes its frame to w in one Write.
func WriteMessage(w io.Writer, m Message) error {
	b, err := Encode(m)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// deref turns a pointer from newMessage into the message value.
func deref(m Message) Message {
	switch p := m.(type) {
	case *Hello:
		return *p
	case *Endpoints:
		return *p
	case *Sync:
		return *p
	case *Result:
		return *p
	case *Error:
		return *p
	}
	return m
}
