package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Measurement is one run's figure.
type Measurement struct {
	// Value is the point's metric, in its unit (us for latency, Gb/s).
	Value float64
	// Clean is the run's counter verdict (nil: not read).
	Clean *bool
	// Seconds is the run's wall time, process start to exit.
	Seconds float64
	// AtTick is true for a latency run whose median sits at a multiple of
	// the scheduler's tick ([display.AtTick]).
	AtTick bool
	// RDMACore is the run's rdma-core, as its document says ([RDMACoreOf]).
	RDMACore string
	// Device is the run's device and why it ([DeviceOf]).
	Device string
}

// Runner measures one run of one point on one side.
type Runner interface {
	Run(ctx context.Context, s *Side, p Point) (Measurement, error)
}

// SideError is a side that cannot be gated: not rdma-bench, or one whose
// document this binary cannot read (another schema). It is bad input.
type SideError struct {
	Side string
	Err  error
}

func (e *SideError) Error() string { return e.Side + " side: " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// maxOutput bounds what one run may print on standard output: a single
// point's document is a few kilobytes.
const maxOutput = 16 << 20

// Process runs each measurement as "BIN run WORKLOAD TARGET -s SIZE
// (-n N | -D SECONDS) -o json SIDE-ARGS", the command line a user types,
// and reads the figure from the JSON document it prints.
type Process struct {
	Target           []string
	LatencyIters     int
	BandwidthSeconds float64
	// Timeout bounds one run, its side's commands included.
	Timeout time.Duration
	// Log receives every run's standard error, and the commands' output.
	Log io.Writer
}

// Args returns the command line of one run of p on s, without the binary.
func (r *Process) Args(s *Side, p Point) []string {
	args := append([]string{"run", p.Workload}, r.Target...)
	args = append(args, "-s", strconv.Itoa(p.SizeBytes))
	if p.Latency {
		args = append(args, "-n", strconv.Itoa(r.LatencyIters))
	} else {
		args = append(args, "-D", strconv.FormatFloat(r.BandwidthSeconds, 'g', -1, 64))
	}
	args = append(args, "-o", "json")
	return append(args, s.Args...)
}

// Run measures one run.
func (r *Process) Run(ctx context.Context, s *Side, p Point) (Measurement, error) {
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	if err := r.shell(ctx, s, "before", s.Before); err != nil {
		return Measurement{}, err
	}
	m, err := r.run(ctx, s, p)
	if aerr := r.shell(ctx, s, "after", s.After); err == nil {
		err = aerr
	}
	return m, err
}

func (r *Process) run(ctx context.Context, s *Side, p Point) (Measurement, error) {
	args := r.Args(s, p)
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Env = append(os.Environ(), s.Env...)
	var out limitedBuffer
	out.limit = maxOutput
	var errBuf tailBuffer
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(&errBuf, logWriter(r.Log))
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	line := s.display() + " " + strings.Join(args, " ")
	switch {
	case ctx.Err() != nil:
		return Measurement{}, r.stopped(ctx, line)
	case err != nil:
		code := -1
		if cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return Measurement{}, runError(s, line, code, fmt.Errorf("%w%s", err, errBuf.suffix()))
	case out.over:
		return Measurement{}, fmt.Errorf("%s: printed more than %d bytes", line, maxOutput)
	}
	return measurement(s, p, line, out.Bytes(), secs)
}

// stopped is why a run's context ended: its timeout, or the gate's own
// end (Ctrl-C).
func (r *Process) stopped(ctx context.Context, line string) error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return fmt.Errorf("%s: no result within %v", line, r.Timeout)
	}
	return context.Cause(ctx)
}

// runError is a run that ended with an exit status other than 0: bad
// input (2, rdma-bench's) is the side's, anything else a failed run.
func runError(s *Side, line string, code int, err error) error {
	err = fmt.Errorf("%s: %w", line, err)
	if code == 2 {
		return &SideError{Side: s.Name, Err: err}
	}
	return err
}

// measurement reads the figure from the document a run printed.
func measurement(s *Side, p Point, line string, stdout []byte, secs float64) (Measurement, error) {
	doc, err := document.Parse(stdout)
	if err != nil {
		return Measurement{}, &SideError{Side: s.Name, Err: fmt.Errorf("%s printed no document this rdma-bench reads: %w", line, err)}
	}
	return figure(doc, p, secs)
}

// figure takes the point's metric from a one-point document.
func figure(doc *document.Document, p Point, secs float64) (Measurement, error) {
	if len(doc.Results) != 1 {
		return Measurement{}, fmt.Errorf("%s: the document holds %d results, want 1", p, len(doc.Results))
	}
	res := doc.Results[0]
	if res.Workload != p.Workload || res.SizeBytes != p.SizeBytes {
		return Measurement{}, fmt.Errorf("%s: the document holds %s at %d B", p, res.Workload, res.SizeBytes)
	}
	m := Measurement{Clean: res.Clean, Seconds: secs, RDMACore: RDMACoreOf(doc), Device: DeviceOf(doc)}
	var v *float64
	if p.Latency {
		if res.LatencyUS != nil {
			v = res.LatencyUS.P50
		}
	} else {
		v = res.BwGbps
	}
	if v == nil || !(*v > 0) {
		why := res.Reason
		if why == "" {
			why = "status " + res.Status
		}
		return Measurement{}, fmt.Errorf("%s: no %s figure (%s)", p, p.Metric().Name, why)
	}
	m.Value = *v
	m.AtTick = p.Latency && res.LatencyUS.AtTick()
	return m, nil
}

// RDMACoreOf is the rdma-core a run's document says it ran on: its
// version and, where known, the provider library ("50.0, provider
// /opt/rdma-core/lib/librxe-rdmav34.so"); "" for a TCP run or when the
// document says neither.
func RDMACoreOf(doc *document.Document) string {
	provider := ""
	if doc.Device != nil {
		provider = doc.Device.Provider
	}
	switch {
	case provider == "":
		return doc.Host.RDMACore
	case doc.Host.RDMACore == "":
		return "unknown version, provider " + provider
	}
	return doc.Host.RDMACore + ", provider " + provider
}

// DeviceOf is the device a run's document says it measured on, and why
// ("rxe0 (made by rdma-bench softroce up, the only RDMA device)"); "" for
// a TCP run.
func DeviceOf(doc *document.Document) string {
	d := doc.Device
	switch {
	case d == nil || d.Name == "":
		return ""
	case d.Chosen == "":
		return d.Name
	}
	return d.Name + " (" + d.Chosen + ")"
}

// shell runs one of a side's commands.
func (r *Process) shell(ctx context.Context, s *Side, when, command string) error {
	if command == "" {
		return nil
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = append(os.Environ(), s.Env...)
	var errBuf tailBuffer
	w := io.MultiWriter(&errBuf, logWriter(r.Log))
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("%s side's %s command %q: %w%s", s.Name, when, command, err, errBuf.suffix())
	}
	return nil
}

// Snapshot copies the side's binary into dir and points the side at the
// copy, keeping the original path in Path: a rebuild during the gate then
// cannot change a side under its feet, and each run starts from a local
// file (in the project's VM the work tree is a 9p mount, where starting a
// 20 MB binary costs over half a second a run).
func Snapshot(s *Side, dir string) error {
	src, err := os.Open(s.Bin)
	if err != nil {
		return &SideError{Side: s.Name, Err: fmt.Errorf("reading the binary: %w", err)}
	}
	defer src.Close()
	dst, err := os.CreateTemp(dir, s.Name+"-*")
	if err != nil {
		return fmt.Errorf("copying the %s binary: %w", s.Name, err)
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(dst.Name(), 0o755)
	}
	if err != nil {
		return fmt.Errorf("copying the %s binary: %w", s.Name, err)
	}
	s.Path, s.Bin = s.Bin, dst.Name()
	return nil
}

// display is the binary as the user named it.
func (s *Side) display() string {
	if s.Path != "" {
		return s.Path
	}
	return s.Bin
}

// Version runs "BIN version" and returns its line; a binary that does
// not answer as rdma-bench is a [SideError].
func Version(ctx context.Context, s *Side) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Bin, "version")
	cmd.Env = append(os.Environ(), s.Env...)
	var out limitedBuffer
	out.limit = 4096
	cmd.Stdout = &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	line := strings.TrimSpace(out.String())
	switch {
	case ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		return "", context.Cause(ctx)
	case err != nil:
		return "", &SideError{Side: s.Name, Err: fmt.Errorf("%s version: %w (want an rdma-bench binary)", s.display(), err)}
	case !strings.HasPrefix(line, "rdma-bench "):
		return "", &SideError{Side: s.Name, Err: fmt.Errorf("%s version printed %q: not rdma-bench", s.display(), clip(line, 80))}
	}
	return line, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// limitedBuffer keeps at most limit bytes and says when more came.
type limitedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last bytes written, for an error message.
type tailBuffer struct{ b []byte }

const tailBytes = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailBytes {
		t.b = t.b[len(t.b)-tailBytes:]
	}
	return len(p), nil
}

// suffix is the tail as ": LAST LINES", or "".
func (t *tailBuffer) suffix() string {
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	return ": " + strings.Join(lines[max(0, len(lines)-3):], " / ")
}

func logWriter(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
