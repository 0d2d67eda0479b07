package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// launcherVars are the environment variables a launcher sets: a rank
// under test gets only the ones the test gives it.
var launcherVars = []string{"OMPI_", "PMI_", "PMIX_", "SLURM_", "JOB_COMPLETION_INDEX", "HYDRA_", "MPI_LOCALRANKID"}

// cleanEnv is this process's environment without launcher variables, plus
// extra.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(launcherVars, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// rankProc is a process under test (a rank, or a launcher running the
// ranks): its stdout kept, its stderr kept and passed on line by line.
type rankProc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer // read once done
	stderr syncBuffer
	lines  chan string
	done   chan struct{}
	code   int
}

// startProc starts name with args and env; t's cleanup kills it.
func startProc(t *testing.T, env []string, name string, args ...string) *rankProc {
	t.Helper()
	p := &rankProc{cmd: exec.Command(name, args...), lines: make(chan string, 1000), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout = &p.stdout
	pr, pw := io.Pipe()
	p.cmd.Stderr = pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.stderr.WriteLine(sc.Text())
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		err := p.cmd.Wait()
		pw.Close()
		<-read
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				p.code = 128 + int(ws.Signal())
			}
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// startRank starts `rdma-bench fabric ARGS` with env.
func startRank(t *testing.T, env []string, args ...string) *rankProc {
	t.Helper()
	return startProc(t, env, binary(t), append([]string{"fabric"}, args...)...)
}

// wait waits up to limit for the process to end and returns how long it
// took.
func (p *rankProc) wait(t *testing.T, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-p.done:
		return time.Since(start)
	case <-time.After(limit):
		t.Fatalf("%s still running %v later:\n%s", p.cmd.Args, limit, p.stderr.String())
	}
	return 0
}

// await waits up to limit for a stderr line holding s.
func (p *rankProc) await(t *testing.T, s string, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l, s) {
				return
			}
		case <-p.done:
			t.Fatalf("exited (%d) before %q:\n%s", p.code, s, p.stderr.String())
		case <-deadline:
			t.Fatalf("no %q within %v:\n%s", s, limit, p.stderr.String())
		}
	}
}

// runLauncher runs a launcher command to its end, within limit.
func runLauncher(t *testing.T, limit time.Duration, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: did not finish within %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), limit, out.String(), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// fabricJSON is rank 0's JSON document as a reader decodes it.
type fabricJSON struct {
	fabric.Document
	ThresholdPct float64          `json:"threshold_pct"`
	Outliers     []fabric.Outlier `json:"outliers"`
}

func readFabricJSON(t *testing.T, b []byte) *fabricJSON {
	t.Helper()
	var d fabricJSON
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("rank 0's document: %v\n%s", err, b)
	}
	return &d
}

// wantOutliers recomputes, apart from pkg/fabric, which measured pairs
// are worse than their metric's median by more than the threshold:
// "metric src->dst" for each.
func wantOutliers(d *fabricJSON, metrics []string) []string {
	var out []string
	for _, metric := range metrics {
		var vals []float64
		for _, p := range d.Pairs {
			if v, ok := p.Figures.Get(metric); ok && p.Status == fabric.StatusOK {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		slices.Sort(vals)
		med := vals[len(vals)/2]
		if len(vals)%2 == 0 {
			med = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
		}
		higherBetter := strings.HasSuffix(metric, "_gbps") || strings.HasSuffix(metric, "_mpps")
		for _, p := range d.Pairs {
			v, ok := p.Figures.Get(metric)
			if !ok || p.Status != fabric.StatusOK {
				continue
			}
			worse := (v - med) / med * 100
			if higherBetter {
				worse = -worse
			}
			if worse > d.ThresholdPct {
				out = append(out, metric+" "+strconv.Itoa(p.Src)+"->"+strconv.Itoa(p.Dst))
			}
		}
	}
	slices.Sort(out)
	return out
}

// gotOutliers lists the document's outliers as wantOutliers does.
func gotOutliers(d *fabricJSON) []string {
	var out []string
	for _, o := range d.Outliers {
		out = append(out, o.Metric+" "+strconv.Itoa(o.Src.Rank)+"->"+strconv.Itoa(o.Dst.Rank))
	}
	slices.Sort(out)
	return out
}

// checkFigures checks that every OK pair has a finite, positive figure
// for each metric.
func checkFigures(t *testing.T, d *fabricJSON, metrics []string) {
	t.Helper()
	for _, p := range d.Pairs {
		if p.Status != fabric.StatusOK {
			continue
		}
		for _, m := range metrics {
			if v, ok := p.Figures.Get(m); !ok || !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("pair %d->%d: %s = %v (%v), want a positive figure", p.Src, p.Dst, m, v, ok)
			}
		}
	}
}

// matrixRows returns the rows of metric's matrix in a table output:
// "| 0 host | - | 1.234 | ..." split into cells.
func matrixRows(t *testing.T, out, metric string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(out, metric+": rows measure (src), columns serve (dst)\n")
	if !ok {
		t.Fatalf("no matrix of %s in:\n%s", metric, out)
	}
	lines := strings.Split(rest, "\n")
	if len(lines) < 4 {
		t.Fatalf("matrix of %s cut short:\n%s", metric, rest)
	}
	var rows [][]string
	for _, line := range lines[3:] { // under the border, header, border
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// checkPairResults checks that every measured pair's result is a report
// document (run's schema) with one ok result per workload, in order.
func checkPairResults(t *testing.T, d *fabricJSON, workloads ...string) {
	t.Helper()
	for _, p := range d.Pairs {
		if p.Status != fabric.StatusOK {
			continue
		}
		var doc struct {
			SchemaVersion int `json:"schema_version"`
			Results       []struct {
				Workload, Status string
			} `json:"results"`
		}
		if err := json.Unmarshal(p.Result, &doc); err != nil {
			t.Fatalf("pair %d->%d result: %v", p.Src, p.Dst, err)
		}
		var got []string
		for _, r := range doc.Results {
			got = append(got, r.Workload+" "+r.Status)
		}
		var want []string
		for _, w := range workloads {
			want = append(want, w+" ok")
		}
		if doc.SchemaVersion != 2 || !slices.Equal(got, want) {
			t.Errorf("pair %d->%d: schema %d, results %q; want 2 and %q", p.Src, p.Dst, doc.SchemaVersion, got, want)
		}
	}
}
