package gate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// fakeSideEnv makes this test binary play an rdma-bench side (see
// TestMain): its value is the behaviour.
const fakeSideEnv = "RDMA_BENCH_GATE_FAKE_SIDE"

// slowLogEnv names the file a "slow" fake worker logs its start to.
const slowLogEnv = "RDMA_BENCH_GATE_FAKE_SLOW_LOG"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeSideEnv); mode != "" {
		os.Exit(fakeSide(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeDoc is a one-point run document of write_lat at 64 B whose p50 is
// v microseconds.
func fakeDoc(v float64) string {
	clean := true
	d := &document.Document{Tool: document.Tool{Name: "rdma-bench"}, Repeat: 1, StartedAt: time.Now().UTC(),
		Results: []*document.Result{{Workload: "write_lat", Transport: "RC", Completion: "poll", Kind: document.KindLatency,
			SizeBytes: 64, Iterations: 100, Figures: document.Figures{Status: document.StatusOK, Clean: &clean,
				LatencyUS: &document.Latency{P50: &v}}}}}
	var b bytes.Buffer
	if err := document.Encode(&b, d); err != nil {
		panic(err)
	}
	return b.String()
}

// fakeSide is a side's binary: "version" answers as rdma-bench; "run"
// prints a document; "worker" behaves as mode says: ok (serves), old
// (no such command, as a binary that predates it), die (exits at the
// second request), hang (never answers), garbage (answers text), schema
// (a document of another schema),
// protocol (a hello of another protocol), garbage-hello (text first),
// slow (serves, but takes a second to start, logged to the file that
// slowLogEnv names), v1 (serves, saying protocol 1: it cannot hold a run),
// hold-die (exits at a held run's ready stage), hold-wrong (holds at a
// stage it should not). A held run (protocol 2) reports each stage and
// waits for its go; with holdLogEnv set, the fake logs what it did and
// when, to check the order of two sides' stages.
func fakeSide(mode string, args []string) int {
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "version":
		fmt.Println("rdma-bench v0.0 (commit fake)")
		return 0
	case "run":
		fmt.Print(fakeDoc(10))
		return 0
	case WorkerCommand:
	default:
		return 2
	}
	hello := Hello{Worker: "rdma-bench", Protocol: WorkerProtocol, Version: "rdma-bench v0.0 (commit fake)"}
	switch mode {
	case "old":
		fmt.Fprintln(os.Stderr, `rdma-bench: unknown command "worker"`)
		return 2
	case "protocol":
		hello.Protocol = WorkerProtocol + 1
	case "v1":
		hello.Protocol = 1
	case "garbage-hello":
		fmt.Println("latency 12 us")
		return 0
	case "slow":
		// Say when it started and when it answers, on the file the test
		// names, a second apart.
		log, _ := os.OpenFile(os.Getenv(slowLogEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintf(log, "start %d\n", time.Now().UnixNano())
		time.Sleep(time.Second)
		fmt.Fprintf(log, "hello %d\n", time.Now().UnixNano())
		log.Close()
	}
	b, _ := EncodeLine(hello)
	os.Stdout.Write(b)
	sc := bufio.NewScanner(os.Stdin)
	n := 0
	for sc.Scan() {
		n++
		var req Request
		if err := DecodeLine(sc.Bytes(), &req); err != nil {
			return 3
		}
		switch {
		case mode == "die" && n == 2:
			fmt.Fprintln(os.Stderr, "fake worker: dying")
			return 1
		case mode == "hang":
			time.Sleep(time.Hour)
		case mode == "garbage":
			fmt.Println("latency 12 us")
			continue
		case mode == "schema":
			doc := strings.Replace(fakeDoc(10), `"schema_version": 2`, `"schema_version": 99`, 1)
			b, _ := EncodeLine(Reply{ID: req.ID, Stdout: doc})
			os.Stdout.Write(b)
			continue
		}
		if req.Hold && !fakeHold(mode, req.ID, sc) {
			return 1
		}
		b, _ := EncodeLine(Reply{ID: req.ID, Stdout: fakeDoc(10 + float64(n))})
		os.Stdout.Write(b)
	}
	return 0
}

// holdLogEnv names the file where a fake worker logs its held runs'
// stages: "NAME EVENT UNIXNANO" a line, NAME from fakeNameEnv.
const (
	holdLogEnv  = "RDMA_BENCH_GATE_FAKE_HOLD_LOG"
	fakeNameEnv = "RDMA_BENCH_GATE_FAKE_NAME"
)

// fakeHold plays a held run's stages; false: the worker exits (hold-die,
// or a go line it cannot read).
func fakeHold(mode string, id int, sc *bufio.Scanner) bool {
	logged := func(event string) {
		if f := os.Getenv(holdLogEnv); f != "" {
			log, _ := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			fmt.Fprintf(log, "%s %s %d\n", os.Getenv(fakeNameEnv), event, time.Now().UnixNano())
			log.Close()
		}
	}
	for _, stage := range []string{StageReady, StageMeasured} {
		if mode == "hold-die" {
			fmt.Fprintln(os.Stderr, "fake worker: dying while held")
			return false
		}
		say := stage
		if mode == "hold-wrong" {
			say = "elsewhere"
		}
		logged(stage)
		b, _ := EncodeLine(Reply{ID: id, Stage: say})
		os.Stdout.Write(b)
		var g Go
		if !sc.Scan() || DecodeLine(sc.Bytes(), &g) != nil || g.ID != id || g.Go != stage {
			return false
		}
		logged("go-" + stage)
		if stage == StageReady {
			time.Sleep(50 * time.Millisecond) // the timed part
		}
	}
	return true
}

func testPool(t *testing.T, base, cand string) (*Pool, *Side, *Side) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sides := []*Side{{Name: "base", Bin: self, Env: []string{fakeSideEnv + "=" + base}},
		{Name: "candidate", Bin: self, Env: []string{fakeSideEnv + "=" + cand}}}
	p := &Pool{Process: Process{Target: []string{"--loopback"}, LatencyIters: 100, BandwidthSeconds: 0.1, Timeout: 5 * time.Second}}
	if err := p.Start(context.Background(), sides...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, sides[0], sides[1]
}

var lat64 = Point{Workload: "write_lat", SizeBytes: 64, Latency: true}

// TestPoolWorkers: both sides answer from their workers, run after run.
func TestPoolWorkers(t *testing.T) {
	p, base, cand := testPool(t, "ok", "ok")
	if base.RunsAs != RunsAsWorker || cand.RunsAs != RunsAsWorker {
		t.Fatalf("runs as %q and %q, want workers", base.RunsAs, cand.RunsAs)
	}
	for i := 1; i <= 3; i++ {
		for _, s := range []*Side{base, cand} {
			m, err := p.Run(context.Background(), s, lat64)
			if err != nil || m.Value != 10+float64(i) || m.Clean == nil || !*m.Clean {
				t.Fatalf("run %d of %s: %+v, %v; want p50 %d from its worker", i, s.Name, m, err, 10+i)
			}
		}
	}
}

// TestPoolFallsBack: a side without the worker mode makes both sides run
// as a process per run, and says why.
func TestPoolFallsBack(t *testing.T) {
	for _, mode := range []string{"old", "protocol", "garbage-hello"} {
		p, base, cand := testPool(t, "ok", mode)
		if base.RunsAs != RunsAsProcess || cand.RunsAs != RunsAsProcess || !strings.Contains(base.RunsAsWhy, "candidate side") ||
			!strings.HasSuffix(base.RunsAsWhy, ": both sides run as a process per run") {
			t.Errorf("%s: runs as %q and %q (%q), want both processes, naming the candidate", mode, base.RunsAs, cand.RunsAs, base.RunsAsWhy)
		}
		if m, err := p.Run(context.Background(), cand, lat64); err != nil || m.Value != 10 {
			t.Errorf("%s: a run as a process: %+v, %v", mode, m, err)
		}
	}
}

// TestPoolWorkerFails: a worker that dies, hangs or answers garbage ends
// its run with an error naming the side, within the run's timeout.
func TestPoolWorkerFails(t *testing.T) {
	self, _ := os.Executable()
	cases := []struct{ mode, want string }{
		{"die", "the candidate side's worker ended (exit status 1): fake worker: dying"},
		{"hang", "no result within 1s"},
		{"garbage", "the candidate side's worker: a worker message that is not protocol 2"},
		{"schema", "candidate side: " + self + " run write_lat --loopback -s 64 -n 100 -o json printed no document this rdma-bench reads"},
	}
	for _, c := range cases {
		p, _, cand := testPool(t, "ok", c.mode)
		p.Timeout = time.Second
		var err error
		start := time.Now()
		for i := 0; i < 2 && err == nil; i++ {
			_, err = p.Run(context.Background(), cand, lat64)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error with %q", c.mode, err, c.want)
		}
		if time.Since(start) > 4*time.Second {
			t.Errorf("%s: took %v", c.mode, time.Since(start))
		}
		if _, err := p.Run(context.Background(), cand, lat64); err == nil {
			t.Errorf("%s: a run after the worker failed succeeded", c.mode)
		}
	}
}

// TestPoolRenew: Renew gives each side a fresh worker process, which
// answers as the first did.
func TestPoolRenew(t *testing.T) {
	p, base, _ := testPool(t, "ok", "ok")
	before := p.PIDs()
	if err := p.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := p.PIDs()
	if len(after) != 2 || slices.ContainsFunc(after, func(pid int) bool { return slices.Contains(before, pid) }) {
		t.Fatalf("workers %v, then %v: want two fresh ones", before, after)
	}
	if m, err := p.Run(context.Background(), base, lat64); err != nil || m.Value != 11 {
		t.Errorf("a run in the fresh worker: %+v, %v", m, err)
	}
}

// TestPoolRenewFails: a fresh worker that cannot serve fails Renew with
// an error naming the side and why, and not saying that the sides fall
// back to a process per run, which only Start does.
func TestPoolRenewFails(t *testing.T) {
	p, _, cand := testPool(t, "ok", "ok")
	cand.Env = []string{fakeSideEnv + "=old"}
	err := p.Renew(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "a fresh worker: the candidate side (") ||
		!strings.HasSuffix(err.Error(), `: rdma-bench: unknown command "worker")`) ||
		strings.Contains(err.Error(), "process per run") {
		t.Errorf("Renew: %v; want the candidate side's failure, without the fallback", err)
	}
}

// TestPoolRenewTogether: the two sides' workers are replaced at the same
// time: the second fresh worker starts before the first has answered (one
// after the other, it would start a second later), whatever the load.
func TestPoolRenewTogether(t *testing.T) {
	log := filepath.Join(t.TempDir(), "slow.log")
	t.Setenv(slowLogEnv, log)
	p, _, _ := testPool(t, "slow", "slow")
	if err := os.Remove(log); err != nil { // the first workers' lines
		t.Fatal(err)
	}
	if err := p.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var starts, hellos []int64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var what string
		var ns int64
		if _, err := fmt.Sscanf(l, "%s %d", &what, &ns); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if what == "start" {
			starts = append(starts, ns)
		} else {
			hellos = append(hellos, ns)
		}
	}
	if len(starts) != 2 || len(hellos) != 2 || slices.Max(starts) > slices.Min(hellos) {
		t.Errorf("fresh workers: starts %v, answers %v: want both started before either answered\n%s", starts, hellos, b)
	}
}

// renewRunner is a fakeRunner that counts Renew calls, each taking half
// a second of the fake clock.
type renewRunner struct {
	*fakeRunner
	renewed []int
}

func (r *renewRunner) Renew(context.Context) error {
	r.renewed = append(r.renewed, r.runs)
	r.clock.t = r.clock.t.Add(500 * time.Millisecond)
	return nil
}

// TestGateRenewsWorkers: the gate renews the workers every WorkerRounds
// rounds, and never with 0.
func TestGateRenewsWorkers(t *testing.T) {
	for _, rounds := range []int{1, 3, 0} {
		c := testConfig(t, "write_lat:64")
		c.MaxPairs, c.WorkerRounds = 12, rounds
		f := &fakeRunner{rng: rand.New(rand.NewPCG(9, 9)), factor: 1, noise: 0.3, secs: time.Second, clock: &fakeClock{t: time.Unix(0, 0)}}
		r := &renewRunner{fakeRunner: f}
		g := &Gate{Config: c, Runner: r, Now: f.clock.now}
		d, err := g.Run(context.Background(), &Document{})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if rounds > 0 {
			want = len(d.Rows[0].Base) / rounds
		}
		if len(r.renewed) != want || d.Settings.WorkerRounds != rounds {
			t.Errorf("--worker-rounds %d: renewed %d times over %d pairs, want %d", rounds, len(r.renewed), len(d.Rows[0].Base), want)
		}
		if d.RenewSeconds != 0.5*float64(len(r.renewed)) {
			t.Errorf("--worker-rounds %d: renew_seconds %g after %d renewals of 0.5 s", rounds, d.RenewSeconds, len(r.renewed))
		}
	}
}

// TestPoolPair: an overlapped pair sets both runs up before either
// measures, measures the first side's timed part, then the second's, and
// tears both down after; the figures come back in the sides' order.
func TestPoolPair(t *testing.T) {
	log := filepath.Join(t.TempDir(), "hold.log")
	t.Setenv(holdLogEnv, log)
	p, base, cand := testPool(t, "ok", "ok")
	base.Env = append(base.Env, fakeNameEnv+"=base")
	cand.Env = append(cand.Env, fakeNameEnv+"=candidate")
	p.Renew(context.Background()) // the names, in fresh workers
	if ok, why := p.Overlaps(); !ok {
		t.Fatalf("Overlaps: false (%s), want true for two workers of protocol 2 in loopback", why)
	}
	for i, first := range []*Side{cand, base} {
		os.Remove(log)
		second := base
		if first == base {
			second = cand
		}
		ms, err := p.Pair(context.Background(), [2]*Side{first, second}, lat64)
		if err != nil || ms[0].Value != 11+float64(i) || ms[1].Value != 11+float64(i) {
			t.Fatalf("pair %d: %+v, %v; want p50 %d from both workers", i+1, ms, err, 11+i)
		}
		b, _ := os.ReadFile(log)
		var order []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(l)
			order = append(order, f[0]+" "+f[1])
		}
		// The two ready stages, in either order, then the rest in this one.
		want := []string{first.Name + " go-ready", first.Name + " measured", second.Name + " go-ready", second.Name + " measured"}
		if len(order) != 8 || !slices.Equal(order[2:6], want) || !slices.Contains(order[:2], first.Name+" ready") || !slices.Contains(order[:2], second.Name+" ready") {
			t.Errorf("pair %d (%s first): stages %q", i+1, first.Name, order)
		}
	}
}

// TestPoolOverlaps: pairs overlap only with workers that can hold runs,
// both ends here and no commands around the runs; otherwise it says why.
func TestPoolOverlaps(t *testing.T) {
	cases := []struct {
		cand, want string
		set        func(p *Pool, cand *Side)
	}{
		{"v1", "the candidate side's worker cannot hold a run (protocol 1)", nil},
		{"old", "the sides run as a process per run", nil},
		{"ok", "--host: ", func(p *Pool, _ *Side) { p.Target = []string{"host1"} }},
		{"ok", "the candidate side has commands around its runs", func(_ *Pool, c *Side) { c.After = "true" }},
		{"ok", "--overlap=false", func(p *Pool, _ *Side) { p.NoOverlap = true }},
	}
	for _, c := range cases {
		p, _, cand := testPool(t, "ok", c.cand)
		if c.set != nil {
			c.set(p, cand)
		}
		if ok, why := p.Overlaps(); ok || !strings.Contains(why, c.want) {
			t.Errorf("%s: Overlaps %v (%q), want false with %q", c.cand, ok, why, c.want)
		}
	}
	// A side of protocol 1 still serves its runs one after the other.
	p, _, cand := testPool(t, "ok", "v1")
	if m, err := p.Run(context.Background(), cand, lat64); err != nil || m.Value != 11 || cand.RunsAs != RunsAsWorker {
		t.Errorf("a run in a protocol 1 worker: %+v, %v, runs as %q", m, err, cand.RunsAs)
	}
}

// TestPoolPairFails: a worker that dies while held, or holds at the
// wrong stage, ends the pair with an error naming the side, in time.
func TestPoolPairFails(t *testing.T) {
	cases := []struct{ mode, want string }{
		{"hold-die", "the candidate side's worker ended (exit status 1): fake worker: dying while held"},
		{"hold-wrong", `the candidate side's worker held at "elsewhere", want "ready"`},
		{"hang", "no pair within 2s"},
	}
	for _, c := range cases {
		p, base, cand := testPool(t, "ok", c.mode)
		p.Timeout = time.Second
		start := time.Now()
		_, err := p.Pair(context.Background(), [2]*Side{base, cand}, lat64)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error with %q", c.mode, err, c.want)
		}
		if time.Since(start) > 4*time.Second {
			t.Errorf("%s: took %v", c.mode, time.Since(start))
		}
	}
}
