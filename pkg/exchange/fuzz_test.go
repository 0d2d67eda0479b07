package exchange

import (
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics, that its errors are
// non-empty, and that whatever decodes re-encodes and decodes to the same
// value.
func FuzzDecode(f *testing.F) {
	for _, m := range sampleMessages(f) {
		b, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(frameOf(MsgResult, `{"payload": [1, 2, {"a": "<"}] }`))
	f.Add(frameOf(MsgHello, `{"ROLE":"client","params":{"a":"\u00e9","a":"x"}}`))
	f.Add(frameOf(MsgEndpoints, `{"qps":[{"qpn":1,"gid":"::ffff:10.0.0.1","mtu":2048}]}`))
	f.Add(rawFrame(Magic, ProtocolVersion+1, 1, 0, 2, "{}"))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		again, err := Encode(m)
		if err != nil {
			t.Fatalf("decoded %#v does not re-encode: %v", m, err)
		}
		m2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", again, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed the message:\n%#v\n%#v", m, m2)
		}
	})
}
