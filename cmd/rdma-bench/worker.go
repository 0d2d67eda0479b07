//go:build cgo

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rdma-bench/rdma-bench/internal/safetext"
	"github.com/rdma-bench/rdma-bench/pkg/gate"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

func init() {
	register(gate.WorkerCommand, "serve the gate's runs of one side, one after another, from one process (docs/gate.md)", runWorker)
}

const workerUsage = `usage: rdma-bench worker

Serves the runs the gate asks of one side, so that its binary starts once
per gate instead of once per run. It reads requests from standard input
and answers on standard output, one JSON object a line (docs/gate.md, "The
worker"); each request is the arguments of "rdma-bench run", run by the
same code as that command, in this process. It ends at the end of its
input. Started by rdma-bench gate; not meant to be typed.
`

func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(gate.WorkerCommand, workerUsage, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q: the worker takes its runs on standard input", fs.Arg(0))
	}
	return serveWorker(ctx, os.Stdin, stdout, stderr)
}

// serveWorker answers the requests of in on out until in ends (nil) or
// ctx is cancelled. Each run's standard error goes to stderr as it comes.
func serveWorker(ctx context.Context, in io.Reader, out, stderr io.Writer) error {
	if err := writeLine(out, gate.Hello{Worker: "rdma-bench", Protocol: gate.WorkerProtocol, Version: buildVersion().String()}); err != nil {
		return err
	}
	lines := readLines(in)
	for line := range lines.c {
		var req gate.Request
		rep := gate.Reply{Exit: 2}
		if err := gate.DecodeLine(line, &req); err != nil {
			rep.Error = err.Error()
		} else {
			rep = workerRun(ctx, req, lines, out, stderr)
		}
		if err := writeLine(out, rep); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("worker: %w", context.Cause(ctx))
		}
	}
	if lines.err != nil {
		return fmt.Errorf("worker: reading requests: %w", lines.err)
	}
	return nil
}

// inputLines are the worker's input, a line at a time: the requests, and
// a held run's Go lines. c is closed at the end of the input, err then
// saying why if it was not the end of the file.
type inputLines struct {
	c   chan []byte
	err error
}

func readLines(in io.Reader) *inputLines {
	l := &inputLines{c: make(chan []byte)}
	go func() {
		defer close(l.c)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l.c <- append([]byte(nil), sc.Bytes()...)
		}
		l.err = sc.Err()
	}()
	return l
}

// workerRun runs one request as `rdma-bench run ARGS` would, and replies
// with its exit status, its message and its standard output. A held
// request reports each stage on out and waits for its Go on lines.
func workerRun(ctx context.Context, req gate.Request, lines *inputLines, out, stderr io.Writer) gate.Reply {
	var stdout bytes.Buffer
	cmdline := append([]string{os.Args[0], "run"}, req.Args...)
	if req.Hold {
		ctx = workloads.WithHold(ctx, func(ctx context.Context, stage string) error {
			return holdAt(ctx, req.ID, stage, lines, out)
		})
	}
	err := runTo(ctx, req.Args, cmdline, &stdout, stderr)
	code, msg := exitCode(err)
	return gate.Reply{ID: req.ID, Exit: code, Error: msg, Stdout: stdout.String()}
}

// holdAt says that request id waits at stage, and waits for the Go that
// names it.
func holdAt(ctx context.Context, id int, stage string, lines *inputLines, out io.Writer) error {
	if err := writeLine(out, gate.Reply{ID: id, Stage: stage}); err != nil {
		return err
	}
	select {
	case line, ok := <-lines.c:
		if !ok {
			return errors.New("the worker's input ended")
		}
		var g gate.Go
		if err := gate.DecodeLine(line, &g); err != nil {
			return err
		}
		if g.ID != id || g.Go != stage {
			return fmt.Errorf("a go for request %d at \"%s\", want request %d at %q", g.ID, safetext.Sanitize(g.Go), id, stage)
		}
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func writeLine(w io.Writer, v any) error {
	b, err := gate.EncodeLine(v)
	if err == nil {
		_, err = w.Write(b)
	}
	if err != nil {
		return fmt.Errorf("worker: writing a reply: %w", err)
	}
	return nil
}
