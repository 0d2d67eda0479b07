package fabric

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"testing"
)

// rawFrameOf is payload behind a header announcing n bytes.
func rawFrameOf(magic string, n uint32, payload string) []byte {
	b := append([]byte(magic), 0, 0, 0, 0)
	binary.BigEndian.PutUint32(b[len(magic):], n)
	return append(b, payload...)
}

// FuzzReadFrame checks that readFrame never panics, keeps to its limit,
// gives a non-empty error, and that whatever it decodes encodes and
// decodes again to the same message (a raw result compacted).
func FuzzReadFrame(f *testing.F) {
	reg := testMember(2)
	for _, m := range []*message{
		{Type: msgChallenge, Nonce: "00112233445566778899aabbccddeeff"},
		{Type: msgAuth, Proof: "ab", Nonce: "cd"},
		{Type: msgRegister, Size: 4, Member: &reg},
		{Type: msgAck, Proof: "ef"},
		{Type: msgWelcome, Members: []Member{testMember(0), testMember(1)}},
		{Type: msgStart, Start: &startMsg{Pattern: PatternPairs, Rounds: 3, PairTimeoutNS: 1e9}},
		{Type: msgAssign, Assign: &assignMsg{Round: 1, Role: roleMeasure, Peer: 1}},
		{Type: msgDone, Done: &doneMsg{Round: 1, Figures: map[string]float64{"a.p50_us": 1.5}, Result: json.RawMessage(`{"x":[1,2]}`)}},
		{Type: msgError, Error: "refused"},
	} {
		b, err := encodeFrame(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(rawFrameOf(frameMagic, 16<<20, ""))
	f.Add(rawFrameOf(frameMagic, 5, `{"type":"hello"}`))
	f.Add(rawFrameOf(frameMagic, 2, "{}"))
	f.Add(rawFrameOf(frameMagic, 4, "null"))
	f.Add(rawFrameOf(frameMagic, 40, `{"type":"done","done":{"result":01}}    `))
	f.Add(rawFrameOf("RBF2", 2, "{}"))
	f.Add(rawFrameOf(frameMagic, 46, `{"type":"done","done":{"result": [1, 2 ]}}   `))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		m, err := readFrame(r, authFrame)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		if used := len(b) - r.Len(); used > frameHeader+authFrame {
			t.Fatalf("read %d bytes, more than a frame of %d", used, authFrame)
		}
		again, err := encodeFrame(m)
		if err != nil {
			t.Fatalf("decoded %#v does not encode: %v", m, err)
		}
		m2, err := readFrame(bytes.NewReader(again), maxFrame)
		if err != nil {
			t.Fatalf("encoded %q does not decode: %v", again, err)
		}
		// A raw result is compacted once; then nothing changes.
		again2, err := encodeFrame(m2)
		if err != nil || !bytes.Equal(again, again2) || m.Type != m2.Type || !reflect.DeepEqual(m.Member, m2.Member) {
			t.Fatalf("round trip changed the message:\n%q\n%q (%v)", again, again2, err)
		}
	})
}
