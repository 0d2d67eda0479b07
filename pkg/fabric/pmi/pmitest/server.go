// Package pmitest is a fake PMI-1 process manager for tests: it speaks
// the wire protocol over one socketpair per process, as Hydra does, and
// hands out the client ends' descriptor numbers for PMI_FD.
//
// Like a real manager, it makes a put visible to gets only after the next
// barrier that every process has entered.
package pmitest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/fabric/pmi"
)

// KVSName is the key-value space's name the server gives out.
const KVSName = "kvs_fake_0"

// Server is a fake process manager for Size processes.
type Server struct {
	size int
	fds  []int

	mu        sync.Mutex
	conns     []*peer
	pending   map[string]string // put, not yet visible
	committed map[string]string // visible to get
	inBarrier []*peer
	commands  [][]string
	problems  []string
	wg        sync.WaitGroup
}

type peer struct {
	rank   int
	conn   net.Conn
	wmu    sync.Mutex
	inited bool
}

// New starts a fake process manager for size processes. The caller owns
// the client ends (see FD) and must Close the server.
func New(size int) (*Server, error) {
	s := &Server{size: size, pending: map[string]string{}, committed: map[string]string{}, commands: make([][]string, size)}
	for rank := range size {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("socketpair: %w", err)
		}
		f := os.NewFile(uintptr(fds[0]), "pmi-server")
		conn, err := net.FileConn(f)
		f.Close()
		if err != nil {
			syscall.Close(fds[1])
			s.Close()
			return nil, fmt.Errorf("server end: %w", err)
		}
		p := &peer{rank: rank, conn: conn}
		s.conns = append(s.conns, p)
		s.fds = append(s.fds, fds[1])
		s.wg.Add(1)
		go s.serve(p)
	}
	return s, nil
}

// FD returns the PMI_FD value for rank: the number of the client end of
// its socketpair, which pmi.Open takes over (and closes).
func (s *Server) FD(rank int) string { return strconv.Itoa(s.fds[rank]) }

// Commands returns the command lines rank has sent so far.
func (s *Server) Commands(rank int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands[rank]...)
}

// Problems returns the protocol violations seen (a command before init,
// a wrong kvsname, an unknown command).
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// Close closes the server's ends and waits for its goroutines.
func (s *Server) Close() {
	for _, p := range s.conns {
		p.conn.Close()
	}
	s.wg.Wait()
}

// IdleTimeout bounds the wait for a process's next command.
const IdleTimeout = 30 * time.Second

func (s *Server) serve(p *peer) {
	defer s.wg.Done()
	sc := bufio.NewScanner(p.conn)
	for p.conn.SetReadDeadline(time.Now().Add(IdleTimeout)) == nil && sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.commands[p.rank] = append(s.commands[p.rank], line)
		s.mu.Unlock()
		s.handle(p, line)
	}
}

func (s *Server) handle(p *peer, line string) {
	a, err := pmi.ParseLine(line)
	if err != nil {
		s.problem(p, "%v", err)
		return
	}
	cmd := a["cmd"]
	if !p.inited && cmd != "init" {
		s.problem(p, "%s before init", cmd)
	}
	if k, ok := a["kvsname"]; ok && k != KVSName {
		s.problem(p, "%s in kvs %q, want %q", cmd, k, KVSName)
	}
	switch cmd {
	case "init":
		p.inited = true
		if a["pmi_version"] != "1" {
			s.reply(p, "cmd=response_to_init rc=-1 msg=unsupported_version")
			return
		}
		s.reply(p, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
	case "get_maxes":
		s.reply(p, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024")
	case "get_my_kvsname":
		s.reply(p, "cmd=my_kvsname kvsname="+KVSName)
	case "put":
		s.mu.Lock()
		s.pending[a["key"]] = a["value"]
		s.mu.Unlock()
		s.reply(p, "cmd=put_result rc=0 msg=success")
	case "get":
		s.mu.Lock()
		v, ok := s.committed[a["key"]]
		s.mu.Unlock()
		if !ok {
			s.reply(p, "cmd=get_result rc=-1 msg=key_"+a["key"]+"_not_found")
			return
		}
		s.reply(p, "cmd=get_result rc=0 msg=success value="+v)
	case "barrier_in":
		s.barrier(p)
	case "finalize":
		s.reply(p, "cmd=finalize_ack")
	default:
		s.problem(p, "unknown command %q", cmd)
		s.reply(p, "cmd="+cmd+"_result rc=-1 msg=unknown_command")
	}
}

// barrier holds p until every process has entered, then commits the puts
// and releases them all.
func (s *Server) barrier(p *peer) {
	s.mu.Lock()
	s.inBarrier = append(s.inBarrier, p)
	if len(s.inBarrier) < s.size {
		s.mu.Unlock()
		return
	}
	for k, v := range s.pending {
		s.committed[k] = v
	}
	clear(s.pending)
	waiting := s.inBarrier
	s.inBarrier = nil
	s.mu.Unlock()
	for _, w := range waiting {
		s.reply(w, "cmd=barrier_out")
	}
}

func (s *Server) reply(p *peer, line string) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, _ = p.conn.Write([]byte(line + "\n"))
}

func (s *Server) problem(p *peer, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problems = append(s.problems, fmt.Sprintf("rank %d: ", p.rank)+fmt.Sprintf(format, args...))
}
