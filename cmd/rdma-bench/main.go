// Command rdma-bench measures RDMA latency and bandwidth, in the spirit of
// perftest, with a TCP baseline of the same workload side by side.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
)

// command is one subcommand: it parses its own flags and returns an error;
// only main prints errors and chooses the exit code.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands = map[string]command{}

// register adds a subcommand; each subcommand's file calls it from init.
func register(name, summary string, run func(ctx context.Context, args []string) error) {
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

func usage() {
	fmt.Fprintf(os.Stderr, "usage: rdma-bench COMMAND [flags]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(os.Stderr, "\nrun 'rdma-bench COMMAND --help' for a command's flags; 'rdma-bench --version' for the version\n")
}

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-V") {
		fmt.Println(buildVersion())
		return
	}
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "rdma-bench: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	quietRuntime()
	if err := applySlowdown(); err != nil {
		fmt.Fprintf(os.Stderr, "rdma-bench: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := interrupts()
	err := cmd.run(ctx, os.Args[2:])
	stop()
	if code, msg := exitCode(err); code != 0 || msg != "" {
		if msg != "" {
			fmt.Fprintf(os.Stderr, "rdma-bench %s: %s\n", os.Args[1], msg)
		}
		os.Exit(code)
	}
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
// returned, not printed and exited on.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("rdma-bench "+name, pflag.ContinueOnError)
	fs.SortFlags = false
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
			fmt.Fprintf(os.Stderr, "rdma-bench: note: %s\n", n)
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
