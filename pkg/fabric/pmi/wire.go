package pmi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// call sends one command line and reads the reply, whose cmd must be want.
// The exchange ends at ctx's deadline (DefaultTimeout without one) or when
// ctx is cancelled.
func (c *Client) call(ctx context.Context, want, line string) (map[string]string, error) {
	name := strings.TrimPrefix(strings.Fields(line)[0], "cmd=")
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pmi %s: %w", name, err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultTimeout)
	}
	span := time.Until(deadline).Round(time.Millisecond)
	if err := c.conn.SetDeadline(deadline); err != nil {
		return nil, fmt.Errorf("pmi %s: %w", name, err)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = c.conn.SetDeadline(time.Unix(1, 0)) // wake the blocked read
	})
	reply, err := c.roundTrip(line)
	if !stop() {
		<-fired
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			err = ctx.Err()
		} else if !time.Now().Before(deadline) {
			err = fmt.Errorf("no reply within %s: %w", span, err)
		}
		return nil, fmt.Errorf("pmi %s: %w", name, err)
	}
	attrs, err := ParseLine(reply)
	if err != nil {
		return nil, fmt.Errorf("pmi %s: %w", name, err)
	}
	if attrs["cmd"] != want {
		return nil, fmt.Errorf("pmi %s: reply %q, want cmd=%s", name, reply, want)
	}
	if rc, ok := attrs["rc"]; ok && rc != "0" {
		msg := attrs["msg"]
		if msg == "" {
			msg = "no message"
		}
		return nil, fmt.Errorf("pmi %s: process manager answered rc=%s (%s)", name, rc, msg)
	}
	return attrs, nil
}

// roundTrip writes line and a newline, then reads one reply line.
func (c *Client) roundTrip(line string) (string, error) {
	if _, err := c.conn.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	b, err := c.rd.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("reply longer than %d bytes", MaxLine)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// ParseLine splits a PMI-1 line into its key=value attributes; a value
// ends at the next space and may hold '='. It fails on an attribute
// without '=' and on a line without cmd.
func ParseLine(line string) (map[string]string, error) {
	attrs := make(map[string]string)
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("line %q: attribute %q is not key=value", line, f)
		}
		attrs[k] = v
	}
	if attrs["cmd"] == "" {
		return nil, fmt.Errorf("line %q: no cmd=NAME", line)
	}
	return attrs, nil
}
