// Package pmi is a client of the PMI-1 wire protocol ("simple PMI"): the
// few lines of text a process exchanges with its process manager (MPICH's
// and Intel MPI's Hydra mpiexec, Slurm's srun --mpi=pmi2) over the socket
// whose descriptor the manager passes in PMI_FD.
//
// Every command is one line of space-separated key=value attributes ending
// in a newline, starting with cmd=NAME; every reply is one such line, with
// rc=0 for success (a non-zero rc, with an optional msg, is an error):
//
//	cmd=init pmi_version=1 pmi_subversion=1  ->  cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0
//	cmd=get_maxes                            ->  cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024
//	cmd=get_my_kvsname                       ->  cmd=my_kvsname kvsname=kvs_42_0
//	cmd=put kvsname=K key=KEY value=V        ->  cmd=put_result rc=0
//	cmd=barrier_in                           ->  cmd=barrier_out   (when every process has entered)
//	cmd=get kvsname=K key=KEY                ->  cmd=get_result rc=0 value=V
//	cmd=finalize                             ->  cmd=finalize_ack
//
// A value put before a barrier is visible to every process's get after it.
// Keys and values cannot hold spaces, '=' or newlines.
package pmi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// MaxLine is the longest reply line accepted, in bytes, newline included.
const MaxLine = 4096

// DefaultTimeout bounds a command without a context deadline, barrier
// included.
const DefaultTimeout = 60 * time.Second

// Maxes are the process manager's limits from get_maxes, in bytes.
type Maxes struct {
	KVSNameMax, KeyLenMax, ValLenMax int
}

// Client talks PMI-1 to the process manager over one connection. Its
// methods are not safe for concurrent use.
type Client struct {
	conn    net.Conn
	rd      *bufio.Reader
	kvsname string
	maxes   Maxes
}

// Open takes over the descriptor fdText (PMI_FD's value) and returns a
// client on it; the descriptor is closed with the client.
func Open(fdText string) (*Client, error) {
	fd, err := strconv.Atoi(strings.TrimSpace(fdText))
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("PMI_FD=%q: want a file descriptor number such as 5", fdText)
	}
	f := os.NewFile(uintptr(fd), "PMI_FD")
	if f == nil {
		return nil, fmt.Errorf("PMI_FD=%d: not a valid descriptor", fd)
	}
	conn, err := net.FileConn(f) // duplicates the descriptor
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("PMI_FD=%d: want the process manager's socket: %w", fd, err)
	}
	return NewClient(conn), nil
}

// NewClient returns a client speaking over conn, which it closes on Close.
func NewClient(conn net.Conn) *Client {
	return &Client{conn: conn, rd: bufio.NewReaderSize(conn, MaxLine)}
}

// Close closes the connection without finalizing.
func (c *Client) Close() error { return c.conn.Close() }

// Init opens the conversation (PMI version 1.1), then asks for the limits
// and the key-value space's name.
func (c *Client) Init(ctx context.Context) error {
	r, err := c.call(ctx, "response_to_init", "cmd=init pmi_version=1 pmi_subversion=1")
	if err != nil {
		return err
	}
	if v := r["pmi_version"]; v != "" && v != "1" {
		return fmt.Errorf("pmi init: process manager speaks PMI version %s, want 1", v)
	}
	if r, err = c.call(ctx, "maxes", "cmd=get_maxes"); err != nil {
		return err
	}
	for _, f := range []struct {
		key string
		dst *int
	}{{"kvsname_max", &c.maxes.KVSNameMax}, {"keylen_max", &c.maxes.KeyLenMax}, {"vallen_max", &c.maxes.ValLenMax}} {
		n, err := strconv.Atoi(r[f.key])
		if err != nil || n <= 0 {
			return fmt.Errorf("pmi get_maxes: %s=%q: want a positive number", f.key, r[f.key])
		}
		*f.dst = n
	}
	if r, err = c.call(ctx, "my_kvsname", "cmd=get_my_kvsname"); err != nil {
		return err
	}
	if c.kvsname = r["kvsname"]; c.kvsname == "" {
		return errors.New("pmi get_my_kvsname: reply has no kvsname")
	}
	return nil
}

// Put stores key=value in the key-value space; other processes see it
// after the next Barrier.
func (c *Client) Put(ctx context.Context, key, value string) error {
	if err := c.checkWord("key", key, c.maxes.KeyLenMax); err != nil {
		return err
	}
	if err := c.checkWord("value", value, c.maxes.ValLenMax); err != nil {
		return err
	}
	_, err := c.call(ctx, "put_result", "cmd=put kvsname="+c.kvsname+" key="+key+" value="+value)
	return err
}

// Get returns the value of key, put by some process before a barrier.
func (c *Client) Get(ctx context.Context, key string) (string, error) {
	if err := c.checkWord("key", key, c.maxes.KeyLenMax); err != nil {
		return "", err
	}
	r, err := c.call(ctx, "get_result", "cmd=get kvsname="+c.kvsname+" key="+key)
	if err != nil {
		return "", err
	}
	v, ok := r["value"]
	if !ok {
		return "", fmt.Errorf("pmi get %s: reply has no value", key)
	}
	return v, nil
}

// Barrier returns once every process of the job has entered it, or when
// ctx is done (DefaultTimeout without a deadline).
func (c *Client) Barrier(ctx context.Context) error {
	_, err := c.call(ctx, "barrier_out", "cmd=barrier_in")
	return err
}

// Finalize ends the conversation; the connection stays open until Close.
func (c *Client) Finalize(ctx context.Context) error {
	_, err := c.call(ctx, "finalize_ack", "cmd=finalize")
	return err
}

// checkWord rejects what the line format cannot carry.
func (c *Client) checkWord(what, s string, maxLen int) error {
	if s == "" || strings.ContainsAny(s, " =\n\r\t") {
		return fmt.Errorf("pmi %s %q: want a non-empty word without spaces, '=' or newlines", what, s)
	}
	if maxLen > 0 && len(s) > maxLen {
		return fmt.Errorf("pmi %s %q: %d bytes, the process manager takes at most %d", what, s, len(s), maxLen)
	}
	return nil
}
