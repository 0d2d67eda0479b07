package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// The TCP baseline's data connection: the server listens on the address
// its client reached over the control connection, on a free port (or
// --data-port) that it announces in its endpoints; the client dials it.

// listenData listens for the data connection on the control connection's
// local address.
func listenData(ctrlLocal net.Addr, port int) (*net.TCPListener, error) {
	ta, ok := ctrlLocal.(*net.TCPAddr)
	if !ok {
		return nil, fmt.Errorf("data listener: control address %s is not a TCP address", ctrlLocal)
	}
	addr := (&net.TCPAddr{IP: ta.IP, Port: port, Zone: ta.Zone}).String()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("data listener: %w", err)
	}
	return ln.(*net.TCPListener), nil
}

// acceptData waits, up to the idle timeout or until ctx is done, for the
// data connection from the control connection's peer address; others are
// turned away.
func acceptData(ctx context.Context, ln *net.TCPListener, ctrlPeer net.Addr, busy bool, idle time.Duration) (*sock, error) {
	want, _ := ctrlPeer.(*net.TCPAddr)
	if err := ln.SetDeadline(time.Now().Add(idle)); err != nil {
		return nil, fmt.Errorf("data listener: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { _ = ln.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	for {
		nc, err := ln.AcceptTCP()
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, fmt.Errorf("client %s did not open the data connection within %v", ctrlPeer, idle)
		default:
			return nil, fmt.Errorf("accepting the data connection: %w", err)
		}
		if from, ok := nc.RemoteAddr().(*net.TCPAddr); !ok || want == nil || !from.IP.Equal(want.IP) {
			_ = nc.Close()
			continue
		}
		return newSock(nc, busy, idle)
	}
}

// dialData opens the data connection to port on the control connection's
// peer address.
func dialData(ctx context.Context, ctrlPeer net.Addr, port int, busy bool, idle time.Duration) (*sock, error) {
	ta, ok := ctrlPeer.(*net.TCPAddr)
	if !ok {
		return nil, fmt.Errorf("data connection: control peer %s is not a TCP address", ctrlPeer)
	}
	addr := (&net.TCPAddr{IP: ta.IP, Port: port, Zone: ta.Zone}).String()
	d := net.Dialer{Timeout: idle}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("data connection: %w", err)
	}
	return newSock(nc.(*net.TCPConn), busy, idle)
}
