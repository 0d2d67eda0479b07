package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
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

// proc is a process under test (a rank, or a launcher running the
// ranks): its stdout kept, its stderr kept and passed on line by line.
type proc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer // read once done
	stderr syncBuffer
	lines  chan string
	done   chan struct{}
	code   int
}

// startProc starts name with args and env; t's cleanup kills it.
func startProc(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), lines: make(chan string, 1000), done: make(chan struct{})}
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
		p.cmd.Process.Signal(syscall.SIGCONT) // a stopped one too
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// startRank starts `rdma-bench fabric ARGS` with env.
func startRank(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startProc(t, env, binary(t), append([]string{"fabric"}, args...)...)
}

// wait waits up to limit for the process to end and returns how long it
// took.
func (p *proc) wait(t *testing.T, limit time.Duration) time.Duration {
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
func (p *proc) await(t *testing.T, s string, limit time.Duration) {
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
