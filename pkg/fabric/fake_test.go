package fabric

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeMeasurer measures over real TCP: Serve accepts one connection on the
// rank's listener and answers the client's hello; Measure dials the peer
// and returns figures computed from the pair (see fakeLat, fakeBW), so a
// pair is only measured when its Dst really serves.
type fakeMeasurer struct {
	rank int
	ln   *net.TCPListener
	// more are the listeners after ln, opened by listenMore: ServeEach
	// serves its i-th peer on listener i (ln, then more).
	more []*net.TCPListener
	slow map[[2]int]bool // pairs whose figures are 5x worse
	// factor, when set, scales the figures of this rank's n-th
	// measurement against peer (1-based): latency multiplied, bandwidth
	// divided.
	factor func(peer, n int) float64
	// spans, when set, records every measurement's span.
	spans *spanLog
	// hook, when set, runs before each call with the call's 1-based
	// count; a non-nil error is returned instead of measuring.
	hook func(ctx context.Context, call int, role string, peer int) error
	// unclean, when set, names the peers against which this rank's runs
	// of workload "lat" are not clean: its result then says so, as a run
	// document's counters do.
	unclean map[int]bool

	mu       sync.Mutex
	calls    int
	measured map[int]int // measurements by peer
}

// spanLog records when measurements ran, across ranks.
type spanLog struct {
	mu    sync.Mutex
	spans []span
}

type span struct {
	src, dst   int
	start, end time.Time
}

func (l *spanLog) add(s span) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spans = append(l.spans, s)
}

// fakeUnclean is the counters' verdict of a fakeMeasurer's unclean run.
const fakeUnclean = "not clean: local: packet_seq_err +2 packets"

func fakeLat(src, dst int) float64 { return 1 + 0.01*float64(src) + 0.001*float64(dst) }
func fakeBW(src, dst int) float64  { return 100 - 0.1*float64(src) - 0.01*float64(dst) }

func newFakeMeasurer(t *testing.T, rank int) *fakeMeasurer {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return &fakeMeasurer{rank: rank, ln: ln}
}

func (f *fakeMeasurer) addr() string { return f.ln.Addr().String() }

// listenMore opens listeners until the rank has n, as an incast receiver
// needs, and returns every listener's address, ln's first.
func (f *fakeMeasurer) listenMore(t *testing.T, n int) []string {
	t.Helper()
	addrs := []string{f.addr()}
	for len(addrs) < n {
		ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		f.more = append(f.more, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	return addrs
}

func (f *fakeMeasurer) enter(ctx context.Context, role string, peer int) error {
	f.mu.Lock()
	f.calls++
	call := f.calls
	f.mu.Unlock()
	if f.hook != nil {
		return f.hook(ctx, call, role, peer)
	}
	return nil
}

func (f *fakeMeasurer) Serve(ctx context.Context, peer Member) error {
	return f.serveOn(ctx, f.ln, peer)
}

// ServeEach serves peers[i] on listener i (ln, then more), all at once.
func (f *fakeMeasurer) ServeEach(ctx context.Context, peers []Member) []error {
	errs := make([]error, len(peers))
	if len(peers) > 1+len(f.more) {
		for i := range errs {
			errs[i] = fmt.Errorf("%d peers, %d listeners", len(peers), 1+len(f.more))
		}
		return errs
	}
	var wg sync.WaitGroup
	for i, peer := range peers {
		ln := f.ln
		if i > 0 {
			ln = f.more[i-1]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.serveOn(ctx, ln, peer)
		}()
	}
	wg.Wait()
	return errs
}

// serveOn accepts peer's one connection on ln and answers its hello.
func (f *fakeMeasurer) serveOn(ctx context.Context, ln *net.TCPListener, peer Member) error {
	if err := f.enter(ctx, roleServe, peer.Rank); err != nil {
		return err
	}
	dl, _ := ctx.Deadline()
	ln.SetDeadline(dl)
	stop := context.AfterFunc(ctx, func() { ln.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	c, err := ln.Accept()
	if err != nil {
		return fmt.Errorf("accept: %w", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("hello from %d\n", peer.Rank); line != want {
		return fmt.Errorf("got %q, want %q", line, want)
	}
	_, err = fmt.Fprintf(c, "served by %d\n", f.rank)
	return err
}

func (f *fakeMeasurer) Measure(ctx context.Context, peer Member) (PairResult, error) {
	if err := f.enter(ctx, roleMeasure, peer.Rank); err != nil {
		return PairResult{}, err
	}
	if f.spans != nil {
		sp := span{src: f.rank, dst: peer.Rank, start: time.Now()}
		defer func() { sp.end = time.Now(); f.spans.add(sp) }()
		time.Sleep(5 * time.Millisecond) // long enough for two at once to overlap
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", peer.Addr)
	if err != nil {
		return PairResult{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := fmt.Fprintf(c, "hello from %d\n", f.rank); err != nil {
		return PairResult{}, err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return PairResult{}, err
	}
	served, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "served by "))
	if err != nil || served != peer.Rank {
		return PairResult{}, fmt.Errorf("served by %q, want %d", line, peer.Rank)
	}
	lat, bw := fakeLat(f.rank, peer.Rank), fakeBW(f.rank, peer.Rank)
	if f.slow[[2]int{f.rank, peer.Rank}] {
		lat, bw = lat*5, bw/5
	}
	if f.factor != nil {
		f.mu.Lock()
		if f.measured == nil {
			f.measured = map[int]int{}
		}
		f.measured[peer.Rank]++
		n := f.measured[peer.Rank]
		f.mu.Unlock()
		k := f.factor(peer.Rank, n)
		lat, bw = lat*k, bw/k
	}
	var data any = map[string]int{"src": f.rank, "dst": served}
	if f.unclean[peer.Rank] {
		data = map[string]any{"results": []any{map[string]any{"workload": "lat", "samples": 1000,
			"counters": map[string]any{"clean": false, "verdict": fakeUnclean}}}}
	}
	return PairResult{
		Data:    data,
		Figures: map[string]float64{"lat.p50_us": lat, "bw_gbps": bw},
	}, nil
}

// world is n ranks, each a goroutine with its own context, that rendezvous
// over 127.0.0.1 and sweep with their fakeMeasurers.
type world struct {
	measurers []*fakeMeasurer
	cancels   []context.CancelFunc
	ctxs      []context.Context
	cfg       SweepConfig
	// between, if set, is called with rank 0's address once it listens,
	// before the other ranks start.
	between func(addr string)
	// oneListener registers one listener a rank whatever the pattern
	// needs (ListenersFor).
	oneListener bool
	// devices, when set, is each rank's device (--rails tests).
	devices []string
}

func newWorld(t *testing.T, n int) *world {
	w := &world{cfg: SweepConfig{Pattern: PatternPairs, PairTimeout: time.Second, Grace: 500 * time.Millisecond,
		Workloads: []string{"write_lat", "write_bw"}}}
	for r := range n {
		w.measurers = append(w.measurers, newFakeMeasurer(t, r))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		t.Cleanup(cancel)
		w.ctxs, w.cancels = append(w.ctxs, ctx), append(w.cancels, cancel)
	}
	return w
}

// run rendezvouses and sweeps every rank; it returns rank 0's document
// and every rank's error.
func (w *world) run(t *testing.T) (*Document, []error) {
	t.Helper()
	n := len(w.measurers)
	addr := freeAddr(t)
	errs := make([]error, n)
	var doc *Document
	var wg sync.WaitGroup
	for r := range n {
		if r == 1 && w.between != nil {
			c := dialStranger(t, addr)
			c.Close()
			w.between(addr)
		}
		cfg := testConfig(r, n)
		cfg.Coordinator = addr
		cfg.Self.Addr = w.measurers[r].addr()
		if w.devices != nil {
			cfg.Self.Device = w.devices[r]
		}
		if k := ListenersFor(w.cfg.Pattern, n); k > 1 && !w.oneListener {
			cfg.Self.Listeners = w.measurers[r].listenMore(t, k)
		}
		cfg.IOTimeout = time.Second
		sc := w.cfg
		sc.Measurer = w.measurers[r]
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Rendezvous(w.ctxs[r], cfg)
			if err != nil {
				errs[r] = err
				return
			}
			d, err := s.Sweep(w.ctxs[r], sc)
			errs[r] = err
			if r == 0 {
				doc = d
			}
		}()
	}
	wg.Wait()
	return readBack(t, doc), errs
}

// readBack is rank 0's document as a reader gets it: written by WriteJSON
// (its pairs streamed from the pair log, which is then removed) and
// decoded.
func readBack(t *testing.T, doc *Document) *Document {
	t.Helper()
	if doc == nil {
		return nil
	}
	if doc.log == nil {
		t.Fatal("rank 0's document has no pair log")
	}
	defer doc.Close()
	var b bytes.Buffer
	if err := WriteJSON(&b, doc); err != nil {
		t.Fatal(err)
	}
	back := &Document{}
	if err := json.Unmarshal(b.Bytes(), back); err != nil {
		t.Fatalf("rank 0's document does not decode: %v\n%s", err, b.String())
	}
	if back.PairCount() != doc.PairCount() || back.FailedCount() != doc.FailedCount() {
		t.Fatalf("read back: %d pairs, %d failed; rank 0 had %d and %d", back.PairCount(), back.FailedCount(), doc.PairCount(), doc.FailedCount())
	}
	return back
}

var errKilled = errors.New("killed")
