//go:build cgo

package main

import (
	"bufio"
	"bytes"
	"context"
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
	}{{1, "unknown flag: --bogus"}, {0, "not protocol 1"}, {3, `unknown workload "nope"`}}
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
