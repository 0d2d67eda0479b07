// Command rdma-bench measures RDMA latency and bandwidth, in the spirit of
// perftest, with a TCP baseline of the same workload side by side.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
)

// command is one subcommand: it parses its own flags, writes to the
// writers it is given and returns an error; only main prints errors and
// chooses the exit code ([exitCode]), so a test runs it in-process.
type command struct {
	summary string
	run     runFunc
}

// runFunc runs a subcommand on its arguments (after the command's name).
type runFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) error

var commands = map[string]command{}

// register adds a subcommand; each subcommand's file calls it from init.
func register(name, summary string, run runFunc) {
	commands[name] = command{summary: summary, run: run}
}

// exitStatus is a verdict with its own exit code (compare: 1 regression, 3
// inconclusive), with a line for stderr when msg is not empty.
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string { return e.msg }

// usageError builds an error about bad input, marked as the libraries
// mark theirs (package inputerr), so main exits with code 2.
func usageError(format string, a ...any) error {
	return inputerr.New(format, a...)
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: rdma-bench COMMAND [flags]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nrun 'rdma-bench COMMAND --help' for a command's flags; 'rdma-bench --version' for the version\n")
}

func main() {
	quietRuntime()
	if err := applySlowdown(); err != nil {
		fmt.Fprintf(os.Stderr, "rdma-bench: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := interrupts()
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs the command line args (after the program's name), writing
// to stdout and stderr, and returns the exit status: what main does once
// the process is set up, and what the tests run in-process.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-V") {
		fmt.Fprintln(stdout, buildVersion())
		return 0
	}
	if len(args) < 1 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) < 1 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rdma-bench: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	code, msg := exitCode(cmd.run(ctx, args[1:], stdout, stderr))
	if msg != "" {
		fmt.Fprintf(stderr, "rdma-bench %s: %s\n", args[0], msg)
	}
	return code
}

// exitCode is a command's exit status for the error it returned, with
// the message to print ("" for none): 2 for bad input, a verdict's own
// code, 1 for any other failure.
func exitCode(err error) (int, string) {
	var st *exitStatus
	switch {
	case err == nil, errors.Is(err, pflag.ErrHelp):
		return 0, ""
	case inputerr.Is(err):
		return 2, err.Error()
	case errors.As(err, &st):
		return st.code, st.msg
	}
	return 1, err.Error()
}

// interrupts returns a context that the first Ctrl-C, SIGTERM or SIGHUP cancels
// (from the start, so that an interrupt during set-up releases what was
// created, like one during a run: every wait ends within a second and what
// was measured is written); a second one exits at once.
func interrupts() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			cancel(fmt.Errorf("%v received", s))
		case <-done:
			return
		}
		select {
		case s := <-sig:
			fmt.Fprintf(os.Stderr, "rdma-bench: %v again: exiting at once\n", s)
			os.Exit(130)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel(nil)
	}
}

// stopped turns the error of a command that reads saved documents into
// exit 130 when a signal cut it short: it writes nothing then (its outputs
// are committed whole after the last wait, package outfile).
func stopped(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return &exitStatus{code: 130, msg: fmt.Sprintf("interrupted (%v): stopped, nothing written", context.Cause(ctx))}
	}
	return err
}

// quietRuntime runs Go code on one P unless GOMAXPROCS is set. Each
// measuring thread spends a run inside one cgo call, which holds its P. With
// another P idle, the runtime's sysmon thread wakes every 20 µs for the
// first 10 ms of such a call (runtime.retake) and preempts the busy-polling
// threads when every core is taken; with one P it hands the P off and
// sleeps. cgo calls need no P, so the threads still run in parallel. The
// trace behind this: docs/measurement.md, "The Go runtime".
func quietRuntime() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// newFlagSet returns a flag set for a subcommand whose parse errors are
// returned, not printed and exited on. Its help (usage, when not "", then
// the flags) and parseFlags' notes go to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("rdma-bench "+name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() {
			fmt.Fprint(stderr, usage)
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args, turning pflag's errors into usage errors. The
// flags of run, suite, server and fabric take perftest's spellings too
// (perftestArgs).
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if isBenchFlagSet(fs) {
		var notes []string
		var err error
		if args, notes, err = perftestArgs(fs, args); err != nil {
			return err
		}
		for _, n := range notes {
			fmt.Fprintf(fs.Output(), "rdma-bench: note: %s\n", n)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError("%v", err)
	}
	return nil
}

// isTerminal reports whether w is a terminal (for colour).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
