package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"syscall"
	"time"
)

// retryInterval is the pause between attempts to reach rank 0.
var retryInterval = 250 * time.Millisecond

// join is a rank's rendezvous other than rank 0's: find and dial the
// coordinator within Timeout, prove the token and register, then wait for
// the member list. A connection rank 0 closes before its challenge (it
// already holds as many strangers as it takes) is tried again.
func (s *Session) join(ctx context.Context) error {
	deadline := time.Now().Add(s.cfg.Timeout)
	for {
		l, err := s.reach(ctx, deadline)
		if err != nil {
			return err
		}
		s.up = l
		err = s.register(ctx, l)
		if !errors.Is(err, errBusy) {
			return err
		}
		l.Close()
		s.up = nil
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryInterval):
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("rank 0 (coordinator %s) kept closing the connection before its challenge for %s: %w", s.CoordinatorAddr, fmtDuration(s.cfg.Timeout), err)
		}
	}
}

// errBusy marks a connection rank 0 closed before it said anything.
var errBusy = errors.New("rank 0 is busy")

// register is the rank's side of auth.go's exchange on l, then the wait
// for the member list.
func (s *Session) register(ctx context.Context, l *link) error {
	l.limit = authFrame
	m, err := l.recv(ctx, s.cfg.IOTimeout)
	switch {
	case err != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)):
		return fmt.Errorf("%w: %w", errBusy, err)
	case err != nil:
		return err
	case m.Type == msgError:
		return fmt.Errorf("rank 0 ended the rendezvous: %s", m.Error)
	case m.Type != msgChallenge || m.Nonce == "":
		return fmt.Errorf("from rank 0: %q message, want a challenge (does rank 0 run this rdma-bench version?)", m.Type)
	}
	nonce, err := newNonce()
	if err != nil {
		return err
	}
	auth := &message{Type: msgAuth, Proof: proof(s.cfg.Token, proofRank, m.Nonce), Nonce: nonce}
	reg := &message{Type: msgRegister, Size: s.World.Size, Member: &s.cfg.Self}
	if err := l.send(ctx, auth, s.cfg.IOTimeout); err != nil {
		return err
	}
	if err := l.send(ctx, reg, s.cfg.IOTimeout); err != nil {
		return refusedError(err)
	}
	m, err = l.recv(ctx, s.cfg.IOTimeout)
	if err != nil {
		return refusedError(err)
	}
	if m.Type == msgAck {
		if !proven(s.cfg.Token, proofRank0, nonce, m.Proof) {
			return errors.New("rank 0 accepted this rank without proving the token: give rank 0 the same --token or RDMA_BENCH_TOKEN")
		}
		l.limit = maxFrame
		// Rank 0 waits up to Timeout from its start for the others.
		if m, err = l.recv(ctx, s.cfg.Timeout+s.cfg.IOTimeout); err != nil {
			return err
		}
	}
	switch {
	case m.Type == msgError && m.Error == refusedText:
		return refusedError(nil)
	case m.Type == msgError:
		return fmt.Errorf("rank 0 ended the rendezvous: %s", m.Error)
	case m.Type != msgWelcome:
		return fmt.Errorf("from rank 0: %q message, want welcome", m.Type)
	}
	if len(m.Members) != s.World.Size {
		return fmt.Errorf("rank 0 sent %d members, want %d", len(m.Members), s.World.Size)
	}
	for i, mb := range m.Members {
		if mb.Rank != i {
			return fmt.Errorf("rank 0's member list has rank %d at position %d", mb.Rank, i)
		}
	}
	s.Members = m.Members
	return nil
}

// refusedError says that rank 0 refused this rank: it answered "refused",
// or (err) closed the connection after the proof.
func refusedError(err error) error {
	const why = "rank 0 refused this rank's registration: give every rank the same --token or RDMA_BENCH_TOKEN"
	switch {
	case err == nil:
		return errors.New(why)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("%s (it closed the connection: %w)", why, err)
	}
	return err
}

// reach finds rank 0's address and dials it, retrying until deadline:
// rank 0 may not listen yet, a Kubernetes pod's name may not resolve yet,
// and a rendezvous directory may still hold the last run's address.
func (s *Session) reach(ctx context.Context, deadline time.Time) (*link, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var resolve func() (string, error)
	var source string
	switch s.Method {
	case MethodPMI:
		addr, err := s.pmiExchange(ctx, deadline, "")
		if err != nil {
			return nil, err
		}
		resolve, source = func() (string, error) { return addr, nil }, "from PMI"
	case MethodCoordinator:
		resolve, source = func() (string, error) { return s.cfg.Coordinator, nil }, "from --coordinator"
	case MethodDir:
		resolve = func() (string, error) { return readAddrFile(s.cfg.Dir) }
		source = "from " + filepath.Join(s.cfg.Dir, AddrFileName)
	}
	var addr string
	var lastErr error
	for {
		a, err := resolve()
		if err == nil {
			addr = a
			d := net.Dialer{Timeout: min(s.cfg.IOTimeout, time.Until(deadline))}
			c, derr := d.DialContext(ctx, "tcp", addr)
			if derr == nil {
				s.CoordinatorAddr = addr
				return newLink(c, "rank 0 (coordinator "+addr+")"), nil
			}
			err = derr
		}
		if lastErr == nil || time.Now().Before(deadline) {
			lastErr = err // not the attempt our own deadline cut short
		}
		select {
		case <-ctx.Done():
		case <-time.After(retryInterval):
			continue
		}
		break
	}
	if err := ctx.Err(); errors.Is(err, context.Canceled) {
		return nil, err
	}
	if addr == "" && errors.Is(lastErr, fs.ErrNotExist) {
		return nil, fmt.Errorf("rank 0 wrote no address in %s within %s", filepath.Join(s.cfg.Dir, AddrFileName), fmtDuration(s.cfg.Timeout))
	}
	if addr == "" {
		return nil, fmt.Errorf("no coordinator address within %s: %w", fmtDuration(s.cfg.Timeout), lastErr)
	}
	return nil, fmt.Errorf("coordinator %s (%s) did not answer within %s: %w", addr, source, fmtDuration(s.cfg.Timeout), lastErr)
}
