package exchange

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAwaitAndAnswerHello: a server checks a client's hello (its token)
// before answering; it can refuse with an Error frame instead, which the
// client reports.
func TestAwaitAndAnswerHello(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	srv := async(func() error {
		h, err := server.AwaitHello(time.Second)
		if err != nil {
			return err
		}
		if h.Token != "s3cret" || !h.More || h.Params["size"] != "64" {
			return errors.New("server got hello " + h.Role)
		}
		return server.AnswerHello(map[string]string{"size": "64"}, h)
	})
	peer, err := client.HandshakeToken(RoleClient, map[string]string{"size": "64"}, true, "s3cret")
	if err != nil || peer.Role != RoleServer || peer.Token != "" {
		t.Fatalf("client: %+v, %v", peer, err)
	}
	if err := <-srv; err != nil {
		t.Fatal(err)
	}

	client, server = pair(t)
	srv = async(func() error {
		if _, err := server.AwaitHello(time.Second); err != nil {
			return err
		}
		server.SendError(errors.New("busy: the server is serving 192.0.2.1"))
		return server.Close()
	})
	_, err = client.Handshake(RoleClient, nil, false)
	var pe *PeerError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("client got %v, want the server's refusal", err)
	}
	<-srv
}

// TestAwaitHelloDeadline: a connection that says nothing is dropped when
// the handshake deadline passes.
func TestAwaitHelloDeadline(t *testing.T) {
	t.Parallel()
	_, server := pair(t)
	start := time.Now()
	if _, err := server.AwaitHello(100 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "waiting for hello") {
		t.Fatalf("AwaitHello = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestConcurrentSends: heartbeats and a session's messages go out whole,
// one frame after another, from several goroutines.
func TestConcurrentSends(t *testing.T) {
	t.Parallel()
	client, server := pair(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := client.Send(Sync{Phase: strings.Repeat("x", g+1)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 200 {
		var s Sync
		if err := server.Recv(MsgSync, &s); err != nil {
			t.Fatal(err)
		}
		if strings.Trim(s.Phase, "x") != "" {
			t.Fatalf("mangled frame %q", s.Phase)
		}
	}
	wg.Wait()
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain text: fine":            "plain text: fine",
		"two\nlines":                  `two\nlines`,
		"\x1b[31mred\x1b[0m":          `\x1b[31mred\x1b[0m`,
		"bad \xff byte":               `bad \xff byte`,
		strings.Repeat("a", 600) + "": strings.Repeat("a", 512) + "...",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	if e := (&PeerError{Message: "x\nforged log line"}).Error(); strings.Contains(e, "\n") {
		t.Errorf("a peer error prints a line break: %q", e)
	}
}
