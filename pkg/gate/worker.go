package gate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Ways a side's runs are made, as Side.RunsAs records them.
const (
	RunsAsWorker  = "worker"
	RunsAsProcess = "process"
)

// helloTimeout bounds a worker's start, up to its hello.
const helloTimeout = 30 * time.Second

// Pool makes each side's runs in a worker of its own (`BIN worker`, kept
// from [Pool.Start] to [Pool.Close]), which saves every run the process's
// start, the dynamic loading of rdma-core's providers and the clock's
// calibration; each run still opens the device, creates and connects its
// queue pairs and registers its memory, exactly as `rdma-bench run` does.
// Where a side's binary has no worker mode (a binary older than it), both
// sides run as a process per run ([Process]), so that the two are always
// run alike.
type Pool struct {
	Process
	// NoWorkers makes every run a process (gate --worker=false);
	// NoOverlap makes a pair's runs one after the other (--overlap=false).
	NoWorkers, NoOverlap bool
	workers              map[*Side]*worker
}

// Start starts a worker for each side, setting each side's RunsAs; when
// a side cannot have one, it says why on the log and runs both as
// processes. Only ctx's cancellation is an error.
func (r *Pool) Start(ctx context.Context, sides ...*Side) error {
	r.workers = map[*Side]*worker{}
	why := "--worker=false"
	if !r.NoWorkers {
		why = ""
		for _, s := range sides {
			w, err := startWorker(ctx, s, r.Log)
			if err != nil {
				why = err.Error() + ": both sides run as a process per run"
				break
			}
			r.workers[s] = w
		}
	}
	if ctx.Err() != nil {
		r.Close()
		return context.Cause(ctx)
	}
	if why != "" {
		r.Close()
		r.workers = map[*Side]*worker{}
	}
	for _, s := range sides {
		s.RunsAs = RunsAsWorker
		if why != "" {
			s.RunsAs, s.RunsAsWhy = RunsAsProcess, why
		}
	}
	return nil
}

// Renew replaces every side's worker by a fresh one (the gate calls it
// between rounds, --worker-rounds). What a process keeps from run to run
// (the addresses its memory lands at, its threads, the state of its
// runtime) can make one side's runs persistently a few per cent slower
// than the other's in the emulated VM, which no number of pairs from one
// pair of workers averages out; fresh workers each round make the pairs
// of different rounds independent, as a process per run does. The sides
// are renewed at the same time (nothing is measured meanwhile), and each
// side's fresh worker starts while its old one ends, so a renewal costs
// the slowest of these, not their sum.
func (r *Pool) Renew(ctx context.Context) error {
	type renewed struct {
		side *Side
		w    *worker
		err  error
	}
	out := make(chan renewed, len(r.workers))
	for s, w := range r.workers {
		go func() {
			ended := make(chan struct{})
			go func() {
				w.close()
				close(ended)
			}()
			nw, err := startWorker(ctx, s, r.Log)
			<-ended
			out <- renewed{s, nw, err}
		}()
	}
	var errs []error
	for range len(r.workers) {
		n := <-out
		if n.err != nil {
			delete(r.workers, n.side)
			errs = append(errs, n.err)
			continue
		}
		r.workers[n.side] = n.w
	}
	if len(errs) > 0 {
		return fmt.Errorf("a fresh worker: %w", errors.Join(errs...))
	}
	return nil
}

// Run measures one run of p on s, in the side's worker when it has one.
func (r *Pool) Run(ctx context.Context, s *Side, p Point) (Measurement, error) {
	w := r.workers[s]
	if w == nil {
		return r.Process.Run(ctx, s, p)
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	if err := r.shell(ctx, s, "before", s.Before); err != nil {
		return Measurement{}, err
	}
	m, err := r.request(ctx, w, s, p)
	if aerr := r.shell(ctx, s, "after", s.After); err == nil {
		err = aerr
	}
	return m, err
}

func (r *Pool) request(ctx context.Context, w *worker, s *Side, p Point) (Measurement, error) {
	args := r.Args(s, p)
	line := s.display() + " " + strings.Join(args, " ")
	start := time.Now()
	rep, err := w.do(ctx, args[1:]) // without "run"
	secs := time.Since(start).Seconds()
	switch {
	case ctx.Err() != nil:
		return Measurement{}, r.stopped(ctx, line+" (in its worker)")
	case err != nil:
		return Measurement{}, fmt.Errorf("%s: %w", line, err)
	case rep.Exit != 0:
		return Measurement{}, runError(s, line, rep.Exit, fmt.Errorf("exit status %d (in its worker): %s", rep.Exit, rep.Error))
	case len(rep.Stdout) > maxOutput:
		return Measurement{}, fmt.Errorf("%s: printed more than %d bytes", line, maxOutput)
	}
	return measurement(s, p, line, []byte(rep.Stdout), secs)
}

// PIDs are the workers' processes.
func (r *Pool) PIDs() []int {
	var p []int
	for _, w := range r.workers {
		if w.cmd.Process != nil && !w.dead {
			p = append(p, w.cmd.Process.Pid)
		}
	}
	return p
}

// Close ends every worker: its input closed, then, if it has not exited
// within a few seconds, killed.
func (r *Pool) Close() {
	for _, w := range r.workers {
		w.close()
	}
}

// worker is one side's `BIN worker` process.
type worker struct {
	side  string
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte // the worker's output lines; closed at its end
	err   error       // why lines closed early: a line too long
	tail  *tailBuffer // its standard error's end
	next  int
	dead  bool
	// protocol is the one its hello named: 2 can hold runs.
	protocol int

	waitOnce sync.Once
	waitErr  error
}

// wait waits for the process to end, once.
func (w *worker) wait() error {
	w.waitOnce.Do(func() { w.waitErr = w.cmd.Wait() })
	return w.waitErr
}

// startWorker starts s's worker and reads its hello. A binary without
// the mode, or one that speaks another protocol, is an error saying so;
// what the gate does then is its caller's to say ([Pool.Start] falls
// back to a process per run, [Pool.Renew] fails).
func startWorker(ctx context.Context, s *Side, log io.Writer) (*worker, error) {
	w := &worker{side: s.Name, tail: &tailBuffer{}, lines: make(chan []byte, 1)}
	w.cmd = exec.Command(s.Bin, WorkerCommand)
	w.cmd.Env = append(os.Environ(), s.Env...)
	w.cmd.Stderr = io.MultiWriter(w.tail, logWriter(log))
	w.cmd.WaitDelay = 5 * time.Second
	in, err := w.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("the %s side's worker: %w", s.Name, err)
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("the %s side's worker: %w", s.Name, err)
	}
	w.in = in
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("the %s side's worker: %w", s.Name, err)
	}
	go w.read(out)
	ctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	var h Hello
	line, err := w.line(ctx)
	if err == nil {
		err = DecodeLine(line, &h)
	}
	switch {
	case err != nil:
	case h.Worker != "rdma-bench":
		err = fmt.Errorf("a worker of %q, not rdma-bench", h.Worker)
	case !slices.Contains(workerProtocols, h.Protocol):
		err = fmt.Errorf("worker protocol %d, this gate speaks %d", h.Protocol, WorkerProtocol)
	}
	if err != nil {
		w.close()
		return nil, fmt.Errorf("the %s side (%s) has no worker this gate can use (%v)", s.Name, s.display(), err)
	}
	w.protocol = h.Protocol
	return w, nil
}

// read sends the worker's output lines until it ends.
func (w *worker) read(out io.Reader) {
	defer close(w.lines)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		w.lines <- append([]byte(nil), sc.Bytes()...)
	}
	w.err = sc.Err()
}

// line waits for the worker's next line.
func (w *worker) line(ctx context.Context) ([]byte, error) {
	select {
	case l, ok := <-w.lines:
		if ok {
			return l, nil
		}
		return nil, w.exited()
	case <-ctx.Done():
		w.kill()
		return nil, context.Cause(ctx)
	}
}

// exited says why the worker's output ended.
func (w *worker) exited() error {
	w.dead = true
	if w.err != nil {
		w.kill()
		return fmt.Errorf("the %s side's worker: %w", w.side, w.err)
	}
	err := w.wait()
	status := "exited"
	if err != nil {
		status = err.Error()
	}
	return fmt.Errorf("the %s side's worker ended (%s)%s", w.side, status, w.tail.suffix())
}

// do sends one request and waits for its reply.
func (w *worker) do(ctx context.Context, args []string) (Reply, error) {
	if err := w.send(Request{ID: w.next + 1, Args: args}); err != nil {
		return Reply{}, err
	}
	rep, err := w.reply(ctx)
	if err == nil && rep.Stage != "" {
		w.kill()
		err = fmt.Errorf("the %s side's worker held a run it was not asked to hold", w.side)
	}
	return rep, err
}

// send writes one line to the worker; a Request takes the next id.
func (w *worker) send(msg any) error {
	if w.dead {
		return fmt.Errorf("the %s side's worker has ended", w.side)
	}
	b, err := EncodeLine(msg)
	if err != nil {
		return err
	}
	if _, ok := msg.(Request); ok {
		w.next++
	}
	if _, err := w.in.Write(b); err != nil {
		// It ended between two requests: say how, as when it ends in one.
		w.kill()
		for range w.lines {
		}
		return w.exited()
	}
	return nil
}

// reply waits for the worker's next reply to its last request: a held
// run's stage (Stage set) or the final one.
func (w *worker) reply(ctx context.Context) (Reply, error) {
	line, err := w.line(ctx)
	if err != nil {
		return Reply{}, err
	}
	var rep Reply
	if err := DecodeLine(line, &rep); err != nil {
		w.kill()
		return Reply{}, fmt.Errorf("the %s side's worker: %w", w.side, err)
	}
	if rep.ID != w.next {
		w.kill()
		return Reply{}, fmt.Errorf("the %s side's worker answered request %d, want %d", w.side, rep.ID, w.next)
	}
	return rep, nil
}

// kill ends the worker at once (a timeout, a protocol error, Ctrl-C);
// it cannot answer any more.
func (w *worker) kill() {
	w.dead = true
	if w.cmd.Process != nil {
		_ = w.cmd.Process.Kill()
	}
}

// close ends the worker's input, which ends it; one that has not
// exited within WaitDelay is killed.
func (w *worker) close() {
	_ = w.in.Close()
	if w.cmd.Process == nil {
		return
	}
	// A run the gate stopped waiting for (the other side's failed)
	// still replies: its lines are read, so that it can end.
	go func() {
		for range w.lines {
		}
	}()
	done := make(chan struct{})
	go func() {
		_ = w.wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = w.cmd.Process.Kill()
			<-done
		}
	}
}
