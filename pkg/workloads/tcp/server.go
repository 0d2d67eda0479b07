package tcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
)

// Serve listens on bind:ctrlPort and serves TCP workload clients, one at a
// time: one client, or every client until ctx is done when persistent.
// See ServeListener.
func Serve(ctx context.Context, base Config, explicit map[string]string, bind string, ctrlPort int, persistent bool) error {
	ln, err := exchange.Listen(bind, ctrlPort)
	if err != nil {
		return err
	}
	defer ln.Close()
	return ServeListener(ctx, base, explicit, ln, persistent)
}

// ServeListener serves clients accepted on ln, which it leaves open.
//
// The workload's parameters come from each client. explicit holds those
// the server's user set, keyed and formatted as Config.HandshakeParams
// does; a client that disagrees on any is refused, both sides naming both
// values. base supplies the local settings: CPU, IdleTimeout, DataPort and
// Logf. The data connection listens on the address the client reached,
// on base.DataPort or a free port, announced in the handshake.
//
// A single client's failure is the returned error. A persistent server
// reports each client's outcome to base.Logf and goes on; it returns when
// ctx is done, with an error wrapping ctx.Err().
func ServeListener(ctx context.Context, base Config, explicit map[string]string, ln *exchange.Listener, persistent bool) error {
	if err := base.normalizeLocal(); err != nil {
		return err
	}
	for {
		ctrl, err := ln.Accept(ctx)
		if err != nil {
			return err
		}
		peer := ctrl.RemoteAddr()
		err = serveClient(ctx, base, explicit, ctrl)
		_ = ctrl.Close()
		if !persistent {
			return err
		}
		if base.Logf != nil {
			if err != nil {
				base.Logf("client %s: %v", peer, err)
			} else {
				base.Logf("client %s: done", peer)
			}
		}
	}
}

// serveClient runs one client's measurement over ctrl.
func serveClient(ctx context.Context, base Config, explicit map[string]string, ctrl *exchange.Conn) error {
	ctrl.SetTimeout(base.IdleTimeout)
	stopCtrl := context.AfterFunc(ctx, func() { _ = ctrl.Close() })
	defer stopCtrl()

	ln, err := listenData(ctx, ctrl.LocalAddr(), base.DataPort)
	if err != nil {
		ctrl.SendError(err)
		return err
	}
	defer ln.Close()
	params := make(map[string]string, len(explicit)+1)
	for k, v := range explicit {
		params[k] = v
	}
	params[paramDataPort] = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	peer, err := ctrl.Handshake(exchange.RoleServer, params)
	if err != nil {
		return interrupted(ctx, "serving", err)
	}
	cfg := base
	if err := cfg.applyPeerParams(peer); err != nil {
		ctrl.SendError(err)
		return err
	}
	s, err := acceptData(ctx, ln, ctrl.RemoteAddr(), cfg)
	_ = ln.Close()
	if err != nil {
		ctrl.SendError(err)
		return interrupted(ctx, cfg.Workload, err)
	}
	defer s.close()
	stopData := context.AfterFunc(ctx, s.abort)
	defer stopData()

	v := newServer(cfg, s, ctrl)
	if err := onLockedThread(cfg.CPU, v.measure); err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, cfg.Workload, err)
		}
		var pe *exchange.PeerError
		var op *exchange.OpError
		if !errors.As(err, &pe) && !errors.As(err, &op) {
			ctrl.SendError(err)
		}
		return fmt.Errorf("%s: %w", cfg.Workload, err)
	}
	payload, err := json.Marshal(v.report())
	if err != nil {
		return fmt.Errorf("%s: encoding the result: %w", cfg.Workload, err)
	}
	if err := ctrl.Send(exchange.Result{Payload: payload}); err != nil {
		return interrupted(ctx, cfg.Workload, err)
	}
	return nil
}

// listenData listens for the data connection on the control connection's
// local address.
func listenData(ctx context.Context, ctrlLocal net.Addr, port int) (*net.TCPListener, error) {
	ta, ok := ctrlLocal.(*net.TCPAddr)
	if !ok {
		return nil, fmt.Errorf("data listener: control address %s is not a TCP address", ctrlLocal)
	}
	addr := (&net.TCPAddr{IP: ta.IP, Port: port, Zone: ta.Zone}).String()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("data listener: %w", err)
	}
	return ln.(*net.TCPListener), nil
}

// acceptData waits, up to the idle timeout or until ctx is done, for the
// data connection from the control connection's peer address; others are
// turned away.
func acceptData(ctx context.Context, ln *net.TCPListener, ctrlPeer net.Addr, cfg Config) (*sock, error) {
	want, _ := ctrlPeer.(*net.TCPAddr)
	if err := ln.SetDeadline(time.Now().Add(cfg.IdleTimeout)); err != nil {
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
			return nil, fmt.Errorf("client %s did not open the data connection within %v", ctrlPeer, cfg.IdleTimeout)
		default:
			return nil, fmt.Errorf("accepting the data connection: %w", err)
		}
		if from, ok := nc.RemoteAddr().(*net.TCPAddr); !ok || want == nil || !from.IP.Equal(want.IP) {
			_ = nc.Close()
			continue
		}
		return newSock(nc, cfg.BusyPoll, cfg.IdleTimeout)
	}
}
