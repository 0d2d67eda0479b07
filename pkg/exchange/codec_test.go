package exchange

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// rawFrame builds a frame byte by byte, valid or not.
func rawFrame(magic string, ver uint16, typ, flags uint8, length uint32, payload string) []byte {
	b := make([]byte, HeaderSize, HeaderSize+len(payload))
	copy(b, magic)
	binary.BigEndian.PutUint16(b[4:], ver)
	b[6], b[7] = typ, flags
	binary.BigEndian.PutUint32(b[8:], length)
	return append(b, payload...)
}

// frameOf builds a well-formed header around payload.
func frameOf(t MsgType, payload string) []byte {
	return rawFrame(Magic, ProtocolVersion, uint8(t), 0, uint32(len(payload)), payload)
}

func mustGID(t testing.TB, s string) GID {
	t.Helper()
	g, err := ParseGID(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func sampleMessages(t testing.TB) map[string]Message {
	return map[string]Message{
		"hello": Hello{Role: RoleClient, Params: map[string]string{
			"workload": "write_lat", "size": "64", "note": "<a&b> \u00e9"}},
		"hello/nil-params":   Hello{Role: RoleServer},
		"hello/empty-params": Hello{Role: RoleServer, Params: map[string]string{}},
		"endpoints": Endpoints{QPs: []Endpoint{
			{QPN: 0xffffff, PSN: 0xabcdef, GID: mustGID(t, "fe80::248a:703:49:d4f0"), LID: 7, MTU: 4096,
				Addr: 0xffff_ffff_ffff_ffff, RKey: 0xffffffff, Len: 1 << 40},
			{QPN: 17, PSN: 0, GID: mustGID(t, "::ffff:192.0.2.1"), MTU: 256},
		}},
		"endpoints/none": Endpoints{QPs: []Endpoint{}},
		"sync":           Sync{Phase: "start"},
		"result":         Result{Payload: json.RawMessage(`{"lat_us":[1.5,2],"s":"<x>"}`)},
		"result/empty":   Result{},
		"error":          Error{Message: "cannot create qp: out of memory"},
	}
}

func TestRoundTrip(t *testing.T) {
	for name, m := range sampleMessages(t) {
		t.Run(name, func(t *testing.T) {
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b[:4]) != Magic || b[6] != byte(m.Type()) {
				t.Fatalf("bad header % x", b[:HeaderSize])
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("got %#v, want %#v", got, m)
			}
			// Pointers encode the same.
			pb, err := Encode(ptrTo(m))
			if err != nil || !bytes.Equal(pb, b) {
				t.Fatalf("pointer encodes to %q, %v; want %q", pb, err, b)
			}
		})
	}
}

func ptrTo(m Message) Message {
	switch v := m.(type) {
	case Hello:
		return &v
	case Endpoints:
		return &v
	case Sync:
		return &v
	case Result:
		return &v
	case Error:
		return &v
	}
	return m
}

func TestEncodeWire(t *testing.T) {
	b, err := Encode(Sync{Phase: "go"})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte{'R', 'D', 'M', 'B', 0, ProtocolVersion, 3, 0, 0, 0, 0, 14}, `{"phase":"go"}`...)
	if !bytes.Equal(b, want) {
		t.Fatalf("got %q, want %q", b, want)
	}
	b, _ = Encode(Endpoints{QPs: []Endpoint{{QPN: 1, PSN: 2, GID: mustGID(t, "fe80::1"), LID: 3, MTU: 1024, Addr: 4, RKey: 5, Len: 6}}})
	const wantJSON = `{"qps":[{"qpn":1,"psn":2,"gid":"fe80::1","lid":3,"mtu":1024,"addr":4,"rkey":5,"len":6}]}`
	if got := string(b[HeaderSize:]); got != wantJSON {
		t.Fatalf("got %s, want %s", got, wantJSON)
	}
}

func TestDecodeErrors(t *testing.T) {
	valid := frameOf(MsgSync, `{"phase":"a"}`)
	ep := func(fields string) []byte {
		return frameOf(MsgEndpoints, `{"qps":[{"qpn":1,"psn":1,"gid":"::","mtu":1024`+fields+`}]}`)
	}
	tooMany := `{"qps":[` + strings.Repeat(`{"mtu":256},`, MaxQPs) + `{"mtu":256}]}`
	tests := []struct {
		name  string
		in    []byte
		is    error
		texts []string
	}{
		{"bad magic", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), ErrBadMagic,
			[]string{`peer is not rdma-bench: bad magic 0x47455420 "GET "`}},
		{"bad magic binary", rawFrame("\x00\xff\x01\x02", ProtocolVersion, 3, 0, 0, ""), ErrBadMagic, []string{"0x00ff0102"}},
		{"other version", rawFrame(Magic, ProtocolVersion+1, 1, 0, 2, "{}"), ErrVersionMismatch,
			[]string{fmt.Sprintf("protocol version mismatch: we speak %d, peer speaks %d", ProtocolVersion, ProtocolVersion+1)}},
		{"version zero", rawFrame(Magic, 0, 1, 0, 2, "{}"), ErrVersionMismatch, []string{"peer speaks 0"}},
		{"nonzero flags", rawFrame(Magic, ProtocolVersion, 3, 0x80, 2, "{}"), ErrBadFlags, []string{"unsupported frame flags: 0x80"}},
		{"empty", nil, ErrTruncated, []string{"empty input"}},
		{"truncated header", valid[:5], ErrTruncated, []string{"truncated frame", "5 of 12 header bytes"}},
		{"truncated payload", valid[:len(valid)-3], ErrTruncated, []string{"10 of 13 sync payload bytes"}},
		{"header only", valid[:HeaderSize], ErrTruncated, []string{"0 of 13 sync payload bytes"}},
		{"oversized", rawFrame(Magic, ProtocolVersion, 4, 0, MaxPayload+1, ""), ErrTooLarge,
			[]string{"payload too large: 1048577 bytes, limit 1048576"}},
		{"huge length", rawFrame(Magic, ProtocolVersion, 4, 0, 0xffffffff, "{}"), ErrTooLarge, []string{"4294967295 bytes"}},
		{"unknown type 0", rawFrame(Magic, ProtocolVersion, 0, 0, 2, "{}"), ErrUnknownType, []string{"unknown message type 0"}},
		{"unknown type 9", rawFrame(Magic, ProtocolVersion, 9, 0, 2, "{}"), ErrUnknownType, []string{"unknown message type 9"}},
		{"malformed json", frameOf(MsgHello, `{"role":`), ErrMalformed, []string{"malformed hello"}},
		{"wrong json type", frameOf(MsgHello, `{"role":1}`), ErrMalformed, []string{"malformed hello"}},
		{"unknown field", frameOf(MsgSync, `{"phase":"a","extra":1}`), ErrMalformed,
			[]string{"malformed sync", `unknown field "extra"`}},
		{"trailing json", frameOf(MsgSync, `{"phase":"a"}{"phase":"b"}`), ErrMalformed, []string{"trailing data"}},
		{"trailing garbage", frameOf(MsgSync, `{"phase":"a"} x`), ErrMalformed, []string{"trailing data"}},
		{"trailing bytes after frame", append(bytes.Clone(valid), 'x'), nil, []string{"1 bytes of trailing data"}},
		{"empty payload", frameOf(MsgSync, ""), ErrMalformed, []string{"malformed sync: empty payload"}},
		{"null payload", frameOf(MsgSync, "null"), ErrMalformed, []string{"not a JSON object"}},
		{"array payload", frameOf(MsgSync, "[]"), ErrMalformed, []string{"not a JSON object"}},
		{"bad role", frameOf(MsgHello, `{"role":"boss","params":{}}`), ErrMalformed, []string{`role "boss"`}},
		{"psn 2^24", ep(`,"psn":16777216`), ErrMalformed, []string{"malformed endpoints: qps[0]: psn 0x1000000 exceeds 24 bits"}},
		{"qpn 2^24", ep(`,"qpn":16777216`), ErrMalformed, []string{"qpn 0x1000000 exceeds 24 bits"}},
		{"negative psn", ep(`,"psn":-1`), ErrMalformed, []string{"malformed endpoints"}},
		{"mtu 1500", ep(`,"mtu":1500`), ErrMalformed, []string{"mtu 1500 is not"}},
		{"mtu 0", frameOf(MsgEndpoints, `{"qps":[{"qpn":1}]}`), ErrMalformed, []string{"mtu 0 is not"}},
		{"gid ipv4", ep(`,"gid":"192.0.2.1"`), ErrMalformed, []string{`gid "192.0.2.1"`}},
		{"gid zone", ep(`,"gid":"fe80::1%eth0"`), ErrMalformed, []string{"gid"}},
		{"gid number", ep(`,"gid":5`), ErrMalformed, []string{"malformed endpoints"}},
		{"too many qps", frameOf(MsgEndpoints, tooMany), ErrMalformed, []string{"1025 queue pairs exceeds the limit of 1024"}},
		{"bad result payload", frameOf(MsgResult, `{"payload":}`), ErrMalformed, []string{"malformed result"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode(tt.in)
			if err == nil {
				t.Fatalf("decoded %#v, want an error", m)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %q", err, tt.is)
			}
			for _, s := range tt.texts {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if msg := err.Error(); msg == "" || strings.ToLower(msg[:1]) != msg[:1] {
				t.Errorf("error %q does not start in lower case", msg)
			}
		})
	}
}

func TestDecodeTypedErrors(t *testing.T) {
	_, err := Decode(rawFrame(Magic, 7, 1, 0, 2, "{}"))
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Local != ProtocolVersion || ve.Peer != 7 {
		t.Fatalf("got %v, want *VersionError{ProtocolVersion, 7}", err)
	}
	_, err = Decode(rawFrame(Magic, ProtocolVersion, 1, 0, MaxPayload+5, ""))
	var te *TooLargeError
	if !errors.As(err, &te) || te.Size != MaxPayload+5 || te.Limit != MaxPayload {
		t.Fatalf("got %v, want *TooLargeError", err)
	}
	_, err = Decode(frameOf(MsgHello, "{"))
	var me *MalformedError
	if !errors.As(err, &me) || me.Type != MsgHello {
		t.Fatalf("got %v, want *MalformedError for hello", err)
	}
}

func TestOversizedNotAllocated(t *testing.T) {
	in := rawFrame(Magic, ProtocolVersion, 4, 0, 0xffffffff, "")
	allocs := testing.AllocsPerRun(10, func() { _, _ = Decode(in) })
	if allocs > 20 {
		t.Fatalf("%v allocations decoding an oversized header", allocs)
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		is   error
		text string
	}{
		{"nil", nil, nil, "nil message"},
		{"bad role", Hello{Role: "x"}, nil, "cannot encode invalid hello"},
		{"bad psn", Endpoints{QPs: []Endpoint{{PSN: 1 << 24, MTU: 1024}}}, nil, "qps[0]: psn 0x1000000 exceeds 24 bits"},
		{"bad mtu", Endpoints{QPs: []Endpoint{{MTU: 9000}}}, nil, "mtu 9000"},
		{"too many", Endpoints{QPs: make([]Endpoint, MaxQPs+1)}, nil, "1025 queue pairs"},
		{"bad raw json", Result{Payload: json.RawMessage("{")}, nil, "cannot encode result"},
		{"too large", Error{Message: strings.Repeat("x", MaxPayload)}, ErrTooLarge, "payload too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Encode(tt.m)
			if err == nil {
				t.Fatalf("encoded %q, want an error", b)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %q", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q does not contain %q", err, tt.text)
			}
		})
	}
}

func TestResultCompacted(t *testing.T) {
	m, err := Decode(frameOf(MsgResult, `{"payload": { "a" : [1, 2] } }`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(m.(Result).Payload); got != `{"a":[1,2]}` {
		t.Fatalf("payload %s, want it compacted", got)
	}
}

func TestReadWriteMessage(t *testing.T) {
	var buf bytes.Buffer
	msgs := []Message{Hello{Role: RoleClient}, Sync{Phase: "a"}, Error{Message: "x"}}
	for _, m := range msgs {
		if err := WriteMessage(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range msgs {
		got, err := ReadMessage(&buf)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("got %#v, %v; want %#v", got, err, want)
		}
	}
	if _, err := ReadMessage(&buf); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("at end of stream got %v, want ErrPeerClosed", err)
	}
}

func TestMsgTypeString(t *testing.T) {
	for typ, want := range map[MsgType]string{MsgHello: "hello", MsgEndpoints: "endpoints",
		MsgSync: "sync", MsgResult: "result", MsgError: "error", 0: "message type 0", 200: "message type 200"} {
		if got := typ.String(); got != want {
			t.Errorf("MsgType(%d) = %q, want %q", uint8(typ), got, want)
		}
	}
}
