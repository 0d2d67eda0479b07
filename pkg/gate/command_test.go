package gate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
)

func testOptions() Options {
	return Options{FailOn: DefaultFailOn, Method: string(Paired), Iters: 3000, Duration: 0.2, Alpha: 0.01,
		FirstLook: 10, LookGrowth: 1.5, MaxPairs: 1000, Budget: 5 * time.Minute, Timeout: 2 * time.Minute, Workers: true, WorkerRounds: 1, Overlap: true}
}

func TestOptionsConfig(t *testing.T) {
	o := testOptions()
	cfg, err := o.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Points) != len(DefaultPoints) || cfg.Target[0] != "--loopback" || cfg.Base.Name != "base" || cfg.Candidate.Bin == "" {
		t.Errorf("config %+v", cfg)
	}
	o.Host, o.CandArgs = "peer", "-I 0"
	if cfg, err = o.Config([]string{"write_lat:64"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Target[0] != "peer" || strings.Join(cfg.Candidate.Args, " ") != "-I 0" || len(cfg.Points) != 1 {
		t.Errorf("config %+v", cfg)
	}
}

// TestOptionsConfigBadInput: what the flags get wrong is the input's.
func TestOptionsConfigBadInput(t *testing.T) {
	for _, c := range []struct {
		set  func(o *Options)
		want string
	}{
		{func(o *Options) { o.Host = "-x" }, `--host "-x": want a host name or address`},
		{func(o *Options) { o.FailOn = "nonsense" }, "--fail-on: "},
		{func(o *Options) { o.Timeout = 0 }, "--run-timeout 0s: want a positive duration"},
		{func(o *Options) { o.BaseBin = "/nonexistent" }, "--base-bin /nonexistent: not an executable file"},
		{func(o *Options) { o.CandEnv = []string{"=x"} }, `--candidate-env "=x": want NAME=VALUE`},
		{func(o *Options) { o.BaseArgs = "-s 64" }, "--base-args: -s is the gate's to set"},
		{func(o *Options) { o.CandArgs = "--plot=x" }, "--candidate-args: --plot=x is the gate's to set"},
	} {
		o := testOptions()
		c.set(&o)
		_, err := o.Config(nil)
		if err == nil || !inputerr.Is(err) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v (bad input %v), want %q", err, inputerr.Is(err), c.want)
		}
	}
}

func TestExitStatus(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	boom := errors.New("run failed")
	if code, msg := ExitStatus(ctx, nil, boom); code != ExitMeasurement || msg != "run failed" {
		t.Errorf("a failed run: %d %q", code, msg)
	}
	if code, _ := ExitStatus(ctx, &Document{ExitCode: 3}, nil); code != 3 {
		t.Errorf("an undecided gate: %d", code)
	}
	cancel()
	if code, msg := ExitStatus(ctx, &Document{}, boom); code != 130 || msg != "interrupted: run failed" {
		t.Errorf("interrupted: %d %q", code, msg)
	}
}
