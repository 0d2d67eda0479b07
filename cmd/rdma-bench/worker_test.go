//go:build cgo

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/gate"
)

// TestWorkerProtocol: the worker says hello, answers each line in order
// (a line that is no request, and a run refused as bad input, each with
// exit 2 and the message run would print) and ends at the end of its
// input. Measuring runs are tested in the VM (TestGateTCPAA and make gate).
func TestWorkerProtocol(t *testing.T) {
	in := strings.Join([]string{
		`{"id":1,"args":["write_lat","--loopback","--bogus"]}`,
		`not json`,
		`{"id":3,"args":["nope","--loopback"]}`,
	}, "\n") + "\n"
	var out, errb bytes.Buffer
	if err := serveWorker(context.Background(), strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("worker: %v", err)
	}
	sc := bufio.NewScanner(&out)
	var lines [][]byte
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want a hello and 3 replies:\n%s", len(lines), out.String())
	}
	var h gate.Hello
	if err := gate.DecodeLine(lines[0], &h); err != nil || h.Protocol != gate.WorkerProtocol || !strings.HasPrefix(h.Version, "rdma-bench ") {
		t.Fatalf("hello %+v, %v", h, err)
	}
	want := []struct {
		id  int
		msg string
	}{{1, "unknown flag: --bogus"}, {0, "not protocol 2"}, {3, `unknown workload "nope"`}}
	for i, w := range want {
		var r gate.Reply
		if err := gate.DecodeLine(lines[i+1], &r); err != nil {
			t.Fatalf("reply %d: %v", i+1, err)
		}
		if r.ID != w.id || r.Exit != 2 || !strings.Contains(r.Error, w.msg) || r.Stdout != "" {
			t.Errorf("reply %d: %+v; want id %d, exit 2, %q", i+1, r, w.id, w.msg)
		}
	}
}

// TestWorkerHeld: a held run (protocol 2) says "ready" once set up and
// "measured" once timed, each time waiting for the go that names the
// stage, then replies with its document; a go for another stage, or the
// end of the input while held before measuring, ends it unmeasured with
// a message. tcp_lat runs here; the RDMA workloads hold in the VM (make
// gate, TestGateTCPAA's RDMA sibling).
func TestWorkerHeld(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	served := make(chan error, 1)
	go func() { served <- serveWorker(context.Background(), inR, outW, &errb); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 64<<10), 1<<22)
	next := func() gate.Reply {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the worker's output ended: %v\n%s", lines.Err(), errb.String())
		}
		var r gate.Reply
		if err := gate.DecodeLine(lines.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", lines.Text(), err)
		}
		return r
	}
	send := func(v any) {
		t.Helper()
		b, err := gate.EncodeLine(v)
		if err == nil {
			_, err = inW.Write(b)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !lines.Scan() || !strings.Contains(lines.Text(), `"protocol":2`) {
		t.Fatalf("hello %q", lines.Text())
	}
	args := []string{"tcp_lat", "--loopback", "-s", "64", "-n", "200", "-o", "json"}
	send(gate.Request{ID: 1, Args: args, Hold: true})
	for _, stage := range []string{gate.StageReady, gate.StageMeasured} {
		if r := next(); r.ID != 1 || r.Stage != stage || r.Stdout != "" {
			t.Fatalf("held run: %+v, want stage %q", r, stage)
		}
		send(gate.Go{ID: 1, Go: stage})
	}
	r := next()
	if r.ID != 1 || r.Exit != 0 || r.Stage != "" || !strings.Contains(r.Stdout, `"workload": "tcp_lat"`) {
		t.Fatalf("held run's reply: exit %d %q, stage %q, stdout %.200q", r.Exit, r.Error, r.Stage, r.Stdout)
	}
	send(gate.Request{ID: 2, Args: args, Hold: true})
	if r := next(); r.Stage != gate.StageReady {
		t.Fatalf("second held run: %+v", r)
	}
	send(gate.Go{ID: 2, Go: gate.StageMeasured})
	if r := next(); r.ID != 2 || r.Exit == 0 || !strings.Contains(r.Error, `held before measuring: a go for request 2 at "measured", want request 2 at "ready"`) {
		t.Fatalf("a go for the wrong stage: %+v", r)
	}
	send(gate.Request{ID: 3, Args: args, Hold: true})
	if r := next(); r.Stage != gate.StageReady {
		t.Fatalf("third held run: %+v", r)
	}
	inW.Close()
	if r := next(); r.ID != 3 || r.Exit == 0 || !strings.Contains(r.Error, "held before measuring: the worker's input ended") {
		t.Fatalf("the input ended while held: %+v", r)
	}
	if err := <-served; err != nil {
		t.Fatalf("worker: %v", err)
	}
}
