package exchange

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// header is a decoded frame header.
type header struct {
	version uint16
	typ     MsgType
	flags   uint8
	length  uint32
}

// parseHeader checks a frame header for version ver: magic, version,
// flags, length and type, in that order.
func parseHeader(b *[HeaderSize]byte, ver uint16) (header, error) {
	h := header{
		version: binary.BigEndian.Uint16(b[4:6]),
		typ:     MsgType(b[6]),
		flags:   b[7],
		length:  binary.BigEndian.Uint32(b[8:12]),
	}
	if string(b[:4]) != Magic {
		return h, fmt.Errorf("%w: bad magic %#08x %s", ErrBadMagic, binary.BigEndian.Uint32(b[:4]), strconv.QuoteToASCII(string(b[:4])))
	}
	if h.version != ver {
		return h, &VersionError{Local: ver, Peer: h.version}
	}
	if h.flags != 0 {
		return h, fmt.Errorf("%w: %#02x (must be 0)", ErrBadFlags, h.flags)
	}
	if h.length > MaxPayload {
		return h, &TooLargeError{Size: uint64(h.length), Limit: MaxPayload}
	}
	if !h.typ.known() {
		return h, fmt.Errorf("%w %d", ErrUnknownType, uint8(h.typ))
	}
	return h, nil
}

// appendFrame appends m's frame in version ver to dst.
func appendFrame(dst []byte, m Message, ver uint16) ([]byte, error) {
	if m == nil {
		return dst, errors.New("cannot encode a nil message")
	}
	t := m.Type()
	if err := m.validate(); err != nil {
		return dst, fmt.Errorf("cannot encode invalid %s: %w", t, err)
	}
	var buf bytes.Buffer
	buf.Write(make([]byte, HeaderSize))
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return dst, fmt.Errorf("cannot encode %s: %w", t, err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	n := len(b) - HeaderSize
	if n > MaxPayload {
		return dst, &TooLargeError{Size: uint64(n), Limit: MaxPayload}
	}
	copy(b, Magic)
	binary.BigEndian.PutUint16(b[4:6], ver)
	b[6] = byte(t)
	b[7] = 0
	binary.BigEndian.PutUint32(b[8:12], uint32(n))
	return append(dst, b...), nil
}

// decodePayload strictly decodes and validates a payload of type t into
// dst, a pointer from newMessage or a caller's pointer of the same type.
func decodePayload(t MsgType, p []byte, dst Message) error {
	if err := unmarshalStrict(p, dst); err != nil {
		return &MalformedError{Type: t, Err: err}
	}
	if r, ok := dst.(*Result); ok && r.Payload != nil {
		var c bytes.Buffer
		if err := json.Compact(&c, r.Payload); err != nil {
			return &MalformedError{Type: t, Err: err}
		}
		r.Payload = c.Bytes()
	}
	if err := dst.validate(); err != nil {
		return &MalformedError{Type: t, Err: err}
	}
	return nil
}

// unmarshalStrict decodes exactly one JSON object into v, rejecting
// unknown fields and trailing data.
func unmarshalStrict(p []byte, v any) error {
	if t := bytes.TrimLeft(p, " \t\r\n"); len(t) == 0 {
		return errors.New("empty payload")
	} else if t[0] != '{' {
		return errors.New("payload is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// readFrame reads one frame in version ver from r: the header, checked,
// then the payload. A stream that ends before the first byte gives
// ErrPeerClosed, one that ends inside the frame ErrTruncated; other
// errors from r are returned as they are.
func readFrame(r io.Reader, ver uint16) (header, []byte, error) {
	var hb [HeaderSize]byte
	if n, err := io.ReadFull(r, hb[:]); err != nil {
		return header{}, nil, eofError(err, n, HeaderSize, "header")
	}
	h, err := parseHeader(&hb, ver)
	if err != nil {
		return h, nil, err
	}
	payload := make([]byte, h.length)
	if n, err := io.ReadFull(r, payload); err != nil {
		return h, nil, eofError(err, n, len(payload), h.typ.String()+" payload")
	}
	return h, payload, nil
}

// eofError turns the end of a stream after n of want bytes into
// ErrPeerClosed or ErrTruncated.
func eofError(err error, n, want int, what string) error {
	switch {
	case err == io.EOF && n == 0 && what == "header":
		return ErrPeerClosed
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return fmt.Errorf("%w: stream ended after %d of %d %s bytes", ErrTruncated, n, want, what)
	}
	return err
}
