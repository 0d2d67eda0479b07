package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listen starts a Listener on an ephemeral loopback port.
func listen(t *testing.T) *Listener {
	t.Helper()
	l, err := Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// dial connects a client Conn to port on loopback.
func dial(t *testing.T, port int) *Conn {
	t.Helper()
	c, err := Dial(context.Background(), "127.0.0.1", port, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pair returns a connected client and server.
func pair(t *testing.T) (client, server *Conn) {
	t.Helper()
	l := listen(t)
	client = dial(t, l.Port())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	server, err := l.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Close both at once, as two processes would: a side that sent an
	// Error frame waits in Close for the other to close.
	t.Cleanup(func() {
		done := async(server.Close)
		client.Close()
		<-done
	})
	return client, server
}

// async runs f in a goroutine and returns a channel with its error.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// rawPeer listens on loopback and runs f on the first connection, closing
// it afterwards; it returns the port.
func rawPeer(t *testing.T, f func(net.Conn)) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		f(nc)
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().(*net.TCPAddr).Port
}

func contains(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

var params = map[string]string{"workload": "write_lat", "size": "64", "iterations": "1000", "mtu": "1024"}

func TestSession(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	if client.Role() != RoleClient || server.Role() != RoleServer {
		t.Fatalf("roles %s, %s", client.Role(), server.Role())
	}
	clientEP := Endpoints{QPs: []Endpoint{{QPN: 0x11, PSN: RandomPSN(), GID: mustGID(t, "::ffff:127.0.0.1"), MTU: 1024, Addr: 0x7f0000001000, RKey: 0x1234, Len: 4096}}}
	serverEP := Endpoints{QPs: []Endpoint{{QPN: 0x22, PSN: RandomPSN(), GID: mustGID(t, "fe80::1"), LID: 3, MTU: 1024, Addr: 0x7f0000002000, RKey: 0x5678, Len: 4096}}}
	serverParams := map[string]string{"workload": "write_lat", "size": "64", "iterations": "1000", "mtu": "1024", "server_only": "x"}
	figures := json.RawMessage(`{"lat_us":1.25}`)

	srv := async(func() error {
		peer, err := server.Handshake(RoleServer, serverParams, true)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(peer.Params, params) || !peer.More {
			return fmt.Errorf("server got params %v, more %t", peer.Params, peer.More)
		}
		got, err := server.ExchangeEndpoints(serverEP)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, clientEP) {
			return fmt.Errorf("server got endpoints %+v", got)
		}
		if err := server.Barrier("start"); err != nil {
			return err
		}
		time.Sleep(150 * time.Millisecond) // longer than the client's per-message timeout
		return server.Send(Result{Payload: figures})
	})
	client.SetTimeout(100 * time.Millisecond)
	peer, err := client.Handshake(RoleClient, params, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(peer.Params, serverParams) || peer.More {
		t.Fatalf("client got params %v, more %t (a server never sends more)", peer.Params, peer.More)
	}
	got, err := client.ExchangeEndpoints(clientEP)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, serverEP) {
		t.Fatalf("client got endpoints %+v", got)
	}
	if err := client.Barrier("start"); err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := client.RecvTimeout(MsgResult, &res, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if string(res.Payload) != string(figures) {
		t.Fatalf("result %s", res.Payload)
	}
	if err := <-srv; err != nil {
		t.Fatal(err)
	}
}

func TestParamMismatchBothSides(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	srv := async(func() error {
		_, err := server.Handshake(RoleServer, map[string]string{"workload": "read_lat", "size": "4096", "iterations": "1000"}, false)
		return err
	})
	_, cerr := client.Handshake(RoleClient, params, false)
	serr := <-srv
	contains(t, cerr, "parameter mismatch: size: local 64, peer 4096; workload: local write_lat, peer read_lat")
	contains(t, serr, "parameter mismatch: size: local 4096, peer 64; workload: local read_lat, peer write_lat")
	if !errors.Is(cerr, ErrParamMismatch) || !errors.Is(serr, ErrParamMismatch) {
		t.Fatalf("errors %v, %v are not ErrParamMismatch", cerr, serr)
	}
	// Each side also told the other.
	var pe *PeerError
	if err := client.Recv(MsgSync, nil); !errors.As(err, &pe) || !strings.Contains(err.Error(), "peer: parameter mismatch") {
		t.Fatalf("client then got %v, want the server's Error frame", err)
	}
}

func TestVersionMismatch(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	client.version = ProtocolVersion + 1 // a future client
	srv := async(func() error {
		_, err := server.Handshake(RoleServer, params, false)
		server.Close()
		return err
	})
	start := time.Now()
	_, cerr := client.Handshake(RoleClient, params, false)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v", d)
	}
	contains(t, cerr, fmt.Sprintf("protocol version mismatch: we speak %d, peer speaks %d", ProtocolVersion+1, ProtocolVersion))
	client.Close()
	serr := <-srv
	contains(t, serr, fmt.Sprintf("protocol version mismatch: we speak %d, peer speaks %d", ProtocolVersion, ProtocolVersion+1))
	var ve *VersionError
	if !errors.As(cerr, &ve) || ve.Local != ProtocolVersion+1 || ve.Peer != ProtocolVersion || !errors.Is(serr, ErrVersionMismatch) {
		t.Fatalf("errors %v, %v", cerr, serr)
	}
}

// TestVersionMismatchReply checks the server's answer to another version
// byte by byte: an Error frame in its own version naming both versions.
func TestVersionMismatchReply(t *testing.T) {
	t.Parallel()
	l := listen(t)
	srv := async(func() error {
		s, err := l.Accept(context.Background())
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = s.Handshake(RoleServer, params, false)
		return err
	})
	nc, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(l.Port())))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	payload := `{"role":"client","params":{},"new_v2_field":true}`
	nc.Write(rawFrame(Magic, ProtocolVersion+1, uint8(MsgHello), 0, uint32(len(payload)), payload))
	nc.SetReadDeadline(time.Now().Add(2 * time.Second))
	m, err := ReadMessage(nc)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := m.(Error); !ok || e.Message != fmt.Sprintf("protocol version mismatch: we speak %d, peer speaks %d", ProtocolVersion, ProtocolVersion+1) {
		t.Fatalf("server replied %#v", m)
	}
	nc.Close()
	contains(t, <-srv, fmt.Sprintf("we speak %d, peer speaks %d", ProtocolVersion, ProtocolVersion+1))
}

func TestGarbagePeer(t *testing.T) {
	t.Parallel()
	t.Run("client sends garbage", func(t *testing.T) {
		t.Parallel()
		l := listen(t)
		go func() {
			nc, err := net.Dial("tcp", l.Addr().String())
			if err == nil {
				nc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
				io.Copy(io.Discard, nc) // until the server closes
				nc.Close()
			}
		}()
		s, err := l.Accept(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Handshake(RoleServer, params, false)
		s.Close()
		contains(t, err, "waiting for hello from 127.0.0.1:", `peer is not rdma-bench: bad magic 0x47455420 "GET "`)
		if !errors.Is(err, ErrBadMagic) {
			t.Fatalf("%v is not ErrBadMagic", err)
		}
	})
	t.Run("server sends garbage", func(t *testing.T) {
		t.Parallel()
		port := rawPeer(t, func(nc net.Conn) {
			nc.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			io.Copy(io.Discard, nc)
		})
		c := dial(t, port)
		_, err := c.Handshake(RoleClient, params, false)
		contains(t, err, "waiting for hello", "peer is not rdma-bench")
	})
	t.Run("server sends invalid endpoints", func(t *testing.T) {
		t.Parallel()
		port := rawPeer(t, func(nc net.Conn) {
			payload := `{"qps":[{"qpn":1,"psn":16777216,"gid":"::","mtu":1024}]}`
			nc.Write(frameOf(MsgEndpoints, payload))
			io.Copy(io.Discard, nc)
		})
		c := dial(t, port)
		_, err := c.ExchangeEndpoints(Endpoints{})
		contains(t, err, "waiting for endpoints from", "malformed endpoints: qps[0]: psn 0x1000000 exceeds 24 bits")
	})
	t.Run("unexpected type", func(t *testing.T) {
		t.Parallel()
		port := rawPeer(t, func(nc net.Conn) {
			b, _ := Encode(Hello{Role: RoleServer})
			nc.Write(b)
			io.Copy(io.Discard, nc)
		})
		c := dial(t, port)
		err := c.Recv(MsgEndpoints, &Endpoints{})
		contains(t, err, "expected endpoints, got hello")
		var ue *UnexpectedTypeError
		if !errors.As(err, &ue) || ue.Want != MsgEndpoints || ue.Got != MsgHello || !errors.Is(err, ErrUnexpectedType) {
			t.Fatalf("%v is not the right *UnexpectedTypeError", err)
		}
	})
}

func TestSilentPeer(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	check := func(t *testing.T, err error, start time.Time) {
		t.Helper()
		if d := time.Since(start); d > timeout+time.Second {
			t.Fatalf("took %v with a %v timeout", d, timeout)
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%v is not a timeout", err)
		}
		contains(t, err, "waiting for hello from 127.0.0.1:", "i/o timeout after 200ms")
	}
	t.Run("server never answers", func(t *testing.T) {
		t.Parallel()
		port := rawPeer(t, func(nc net.Conn) { io.Copy(io.Discard, nc) })
		c := dial(t, port)
		c.SetTimeout(timeout)
		start := time.Now()
		_, err := c.Handshake(RoleClient, params, false)
		check(t, err, start)
	})
	t.Run("server stops mid-frame", func(t *testing.T) {
		t.Parallel()
		port := rawPeer(t, func(nc net.Conn) {
			b, _ := Encode(Hello{Role: RoleServer})
			nc.Write(b[:HeaderSize+3])
			io.Copy(io.Discard, nc)
		})
		c := dial(t, port)
		c.SetTimeout(timeout)
		start := time.Now()
		_, err := c.Handshake(RoleClient, params, false)
		check(t, err, start)
	})
	t.Run("client never speaks", func(t *testing.T) {
		t.Parallel()
		l := listen(t)
		nc, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		s, err := l.Accept(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.SetTimeout(timeout)
		start := time.Now()
		_, err = s.Handshake(RoleServer, params, false)
		check(t, err, start)
	})
}

func TestPeerClosesMidFrame(t *testing.T) {
	t.Parallel()
	hello, _ := Encode(Hello{Role: RoleServer})
	tests := []struct {
		name  string
		sent  []byte
		is    error
		texts []string
	}{
		{"nothing", nil, ErrPeerClosed, []string{"waiting for hello from 127.0.0.1:", "connection closed by peer"}},
		{"in header", hello[:5], ErrTruncated, []string{"truncated frame: stream ended after 5 of 12 header bytes"}},
		{"in payload", hello[:len(hello)-2], ErrTruncated, []string{fmt.Sprintf("after %d of %d hello payload bytes", len(hello)-2-HeaderSize, len(hello)-HeaderSize)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			port := rawPeer(t, func(nc net.Conn) {
				ReadMessage(nc) // the client's hello, so closing sends FIN, not RST
				nc.Write(tt.sent)
			})
			c := dial(t, port)
			_, err := c.Handshake(RoleClient, params, false)
			if !errors.Is(err, tt.is) {
				t.Fatalf("%v is not %v", err, tt.is)
			}
			contains(t, err, tt.texts...)
		})
	}
}

func TestPeerError(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	server.SendError(errors.New("cannot create qp: out of memory"))
	err := client.Recv(MsgEndpoints, &Endpoints{})
	var pe *PeerError
	if !errors.As(err, &pe) || err.Error() != "peer: cannot create qp: out of memory" {
		t.Fatalf("got %v, want a *PeerError", err)
	}
}

func TestBarrierMismatch(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	srv := async(func() error { return server.Barrier("finish") })
	cerr := client.Barrier("start")
	serr := <-srv
	contains(t, cerr, "barrier phase mismatch: local start, peer finish")
	contains(t, serr, "barrier phase mismatch: local finish, peer start")
	if !errors.Is(cerr, ErrPhaseMismatch) {
		t.Fatalf("%v is not ErrPhaseMismatch", cerr)
	}
}

func TestRoleMismatch(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	srv := async(func() error { _, err := server.Handshake(RoleClient, nil, false); return err })
	_, err := client.Handshake(RoleClient, nil, false)
	contains(t, err, "role mismatch", "is a client, expected a server")
	<-srv
	if _, err := client.Handshake("boss", nil, false); err == nil {
		t.Fatal("role boss accepted")
	}
}

func TestRecvWrongTarget(t *testing.T) {
	t.Parallel()
	client, _ := pair(t)
	contains(t, client.Recv(MsgHello, &Sync{}), "cannot receive hello into *exchange.Sync")
	contains(t, client.Recv(MsgHello, new(int)), "cannot receive hello into *int")
}

func TestDialRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	start := time.Now()
	_, err = Dial(context.Background(), "127.0.0.1", port, 3*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("refused dial took %v", d)
	}
	if want := fmt.Sprintf("connect 127.0.0.1:%d: connection refused", port); err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	var ae *AddrError
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.As(err, &ae) {
		t.Fatalf("%v is not ECONNREFUSED", err)
	}
	_, err = Dial(context.Background(), "127.0.0.1", 0, time.Second)
	contains(t, err, "connect 127.0.0.1:0: port 0 out of range")
}

func TestIPv6(t *testing.T) {
	t.Parallel()
	l, err := Listen("::1", 0)
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	defer l.Close()
	c, err := Dial(context.Background(), "::1", l.Port(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	l.Close()
	_, err = Dial(context.Background(), "::1", l.Port(), time.Second)
	contains(t, err, fmt.Sprintf("connect [::1]:%d: connection refused", l.Port()))
}

func TestListenErrors(t *testing.T) {
	t.Parallel()
	l := listen(t)
	_, err := Listen("127.0.0.1", l.Port())
	contains(t, err, fmt.Sprintf("listen 127.0.0.1:%d: address already in use", l.Port()))
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("%v is not EADDRINUSE", err)
	}
	_, err = Listen("", 70000)
	contains(t, err, "port 70000 out of range")
}

func TestAcceptContext(t *testing.T) {
	t.Parallel()
	l := listen(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := l.Accept(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := l.Accept(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// The listener still works afterwards.
	go func() {
		if nc, err := net.Dial("tcp", l.Addr().String()); err == nil {
			time.Sleep(100 * time.Millisecond)
			nc.Close()
		}
	}()
	c, err := l.Accept(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	l.Close()
	if _, err := l.Accept(context.Background()); !errors.Is(err, net.ErrClosed) || strings.Count(err.Error(), "accept") != 1 {
		t.Fatalf("accept on closed listener: %v", err)
	}
}

func TestCloseAbortsRecv(t *testing.T) {
	t.Parallel()
	client, _ := pair(t)
	time.AfterFunc(50*time.Millisecond, func() { client.Close() })
	start := time.Now()
	err := client.RecvTimeout(MsgResult, nil, time.Minute)
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
	if client.Close() != nil {
		t.Fatal("second Close failed")
	}
}
