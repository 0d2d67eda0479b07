//go:build cgo

package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/bench"
)

// badCase is one bad value for a flag: its arguments (after the command's
// base), what the message must say, and whether it needs a device to be
// told apart.
type badCase struct {
	args   []string
	want   string
	device bool
}

// badInputs are, for every flag of run, suite and server, at least one
// value out of range and one malformed value (a switch has only the
// malformed one; a name, only the unknown one), each refused with exit 2
// and a message naming what is allowed.
var badInputs = map[string]struct{ outOfRange, malformed []badCase }{
	"connection":      {[]badCase{{[]string{"-c", "XRC"}, "choose RC, UC, UD, TCP", false}}, []badCase{{[]string{"-c", ""}, "choose RC, UC, UD, TCP", false}}},
	"size":            {[]badCase{{[]string{"-s", "2G"}, "larger than 1G", false}}, []badCase{{[]string{"-s", "12Q"}, `size "12Q"`, false}}},
	"iters":           {[]badCase{{[]string{"-n", "0"}, "from 1 to", false}}, []badCase{{[]string{"-n", "abc"}, "whole number", false}}},
	"duration":        {[]badCase{{[]string{"-D", "1e12"}, "0.001 to 86400", false}}, []badCase{{[]string{"-D", "soon"}, "0.001 to 86400", false}}},
	"warmup":          {[]badCase{{[]string{"--warmup", "99999999"}, "from 0 to", false}}, []badCase{{[]string{"--warmup", "x"}, "whole number", false}}},
	"events":          {nil, []badCase{{[]string{"--events=maybe"}, "want true or false", false}}},
	"tx-depth":        {[]badCase{{[]string{"-t", "0"}, "from 1 to 65536", false}}, []badCase{{[]string{"-t", "x"}, "whole number", false}}},
	"rx-depth":        {[]badCase{{[]string{"-r", "100000"}, "from 1 to 65536", false}}, []badCase{{[]string{"-r", "x"}, "whole number", false}}},
	"cq-mod":          {[]badCase{{[]string{"-Q", "0"}, "from 1 to 65536", false}}, []badCase{{[]string{"-Q", "1.5"}, "whole number", false}}},
	"post-list":       {[]badCase{{[]string{"-l", "0"}, "from 1 to 65536", false}}, []badCase{{[]string{"-l", "x"}, "whole number", false}}},
	"qp":              {[]badCase{{[]string{"-q", "2000"}, "from 1 to 1024", false}}, []badCase{{[]string{"-q", "x"}, "whole number", false}}},
	"threads":         {[]badCase{{[]string{"--threads", "0"}, "from 1 to 256", false}}, []badCase{{[]string{"--threads", "x"}, "whole number", false}}},
	"bidir":           {nil, []badCase{{[]string{"--bidir=maybe"}, "want true or false", false}}},
	"imm":             {nil, []badCase{{[]string{"--imm=2"}, "want true or false", false}}},
	"atomic":          {[]badCase{{[]string{"-A", "swap"}, "choose fadd, cswap", false}}, []badCase{{[]string{"-A", ""}, "choose fadd, cswap", false}}},
	"validate":        {nil, []badCase{{[]string{"--validate=yes!"}, "want true or false", false}}},
	"use-hugepages":   {nil, []badCase{{[]string{"--use-hugepages=maybe"}, "want true or false", false}}},
	"post-api":        {[]badCase{{[]string{"--post-api", "fast"}, "choose ex, classic", false}}, []badCase{{[]string{"--post-api", ""}, "choose ex, classic", false}}},
	"use-srq":         {nil, []badCase{{[]string{"--use-srq=2"}, "want true or false", false}}},
	"mcg":             {nil, []badCase{{[]string{"--mcg=maybe"}, "want true or false", false}, {[]string{"-g=2"}, "want true or false", false}}},
	"rdma-cm":         {nil, []badCase{{[]string{"--rdma-cm=x"}, "want true or false", false}}},
	"rate":            {[]badCase{{[]string{"--rate", "0"}, "from 1 to", false}, {[]string{"--rate", "900000000"}, "above what the clock can schedule", false}}, []badCase{{[]string{"--rate", "fast"}, "whole number", false}, {[]string{"--rate", "100,100"}, "in the list twice", false}}},
	"loaders":         {[]badCase{{[]string{"--loaders", "65"}, "from 0 to 64", false}}, []badCase{{[]string{"--loaders", "many"}, "whole number", false}, {[]string{"--loaders", "1,1"}, "in the list twice", false}}},
	"counters":        {nil, []badCase{{[]string{"--counters=maybe"}, "invalid argument", false}}},
	"all":             {nil, []badCase{{[]string{"--all=x"}, "invalid argument", false}}},
	"sweep-min":       {[]badCase{{[]string{"-a", "--sweep-min", "0"}, "at least 1 byte", false}}, []badCase{{[]string{"-a", "--sweep-min", "x"}, `size "x"`, false}}},
	"sweep-max":       {[]badCase{{[]string{"-a", "--sweep-max", "2G"}, "larger than 1G", false}}, []badCase{{[]string{"-a", "--sweep-max", "x"}, `size "x"`, false}}},
	"ib-dev":          {[]badCase{{[]string{"-d", "nosuch"}, `no such RDMA device "nosuch"`, true}}, nil},
	"ib-port":         {[]badCase{{[]string{"-i", "0"}, "device port must be 1..255", false}, {[]string{"-i", "9"}, "it has ports 1..", true}}, []badCase{{[]string{"-i", "x"}, "invalid argument", false}}},
	"gid-index":       {[]badCase{{[]string{"-x", "-2"}, "gid index must be 0 or more", false}, {[]string{"-x", "99"}, "gid index 99 out of range", true}}, []badCase{{[]string{"-x", "x"}, "invalid argument", false}}},
	"mtu":             {[]badCase{{[]string{"-m", "1500"}, "choose 256, 512, 1024, 2048 or 4096", false}}, []badCase{{[]string{"-m", "x"}, "invalid argument", false}}},
	"sl":              {[]badCase{{[]string{"--sl", "16"}, "service level must be 0..15", false}}, []badCase{{[]string{"--sl", "x"}, "invalid argument", false}}},
	"tclass":          {[]badCase{{[]string{"--tclass", "256"}, "traffic class must be 0..255", false}}, []badCase{{[]string{"--tclass", "x"}, "invalid argument", false}}},
	"inline-size":     {[]badCase{{[]string{"-I", "-5"}, "inline size must be 0 or more", false}}, []badCase{{[]string{"-I", "x"}, "invalid argument", false}}},
	"odp":             {[]badCase{{[]string{"--odp"}, "on-demand paging", true}}, []badCase{{[]string{"--odp=maybe"}, "invalid argument", false}}},
	"cpu":             {[]badCase{{[]string{"--cpu", "4095"}, "not among the", false}}, []badCase{{[]string{"--cpu", "x"}, "invalid argument", false}}},
	"idle-timeout":    {[]badCase{{[]string{"--idle-timeout", "1ms"}, "must be at least 100ms", false}}, []badCase{{[]string{"--idle-timeout", "soon"}, "invalid argument", false}}},
	"report-interval": {[]badCase{{[]string{"--report-interval", "1ms"}, "must be at least 10ms|belongs on the client", false}}, []badCase{{[]string{"--report-interval", "x"}, "invalid argument", false}}},
	"port":            {[]badCase{{[]string{"-p", "70000"}, "the control port must be 1..65535", false}}, []badCase{{[]string{"-p", "x"}, "invalid argument", false}}},
	"data-port":       {[]badCase{{[]string{"--data-port", "70000"}, "data port 70000: must be 0..65535", false}}, []badCase{{[]string{"--data-port", "x"}, "invalid argument", false}}},
	"max-memory":      {[]badCase{{[]string{"--max-memory", "2T"}, "larger than 1T", false}}, []badCase{{[]string{"--max-memory", "lots"}, `size "lots"`, false}}},
	"token":           {[]badCase{{[]string{"--token", strings.Repeat("t", 300)}, "up to 256 printable characters", false}}, []badCase{{[]string{"--token", "a\nb"}, "up to 256 printable characters", false}}},
	"clock":           {[]badCase{{[]string{"--clock", "sundial"}, "want auto, monotonic or tsc", false}}, []badCase{{[]string{"--clock", ""}, "want auto, monotonic or tsc", false}}},
	"output":          {[]badCase{{[]string{"-o", "xml"}, `unknown output "xml"`, false}}, []badCase{{[]string{"-o", ""}, `unknown output ""`, false}}},
	"output-file":     {[]badCase{{[]string{"--output-file", "/nonexistent/dir/x.json"}, "cannot create a file in directory /nonexistent/dir", false}}, []badCase{{[]string{"--output-file", "/"}, "--output-file /: is a directory", false}}},
	"samples":         {[]badCase{{[]string{"--samples", "/nonexistent/dir/s.csv"}, "--samples", false}}, []badCase{{[]string{"--samples", "-"}, "give a file", false}}},
	"plot":            {[]badCase{{[]string{"--plot", "/proc/nope"}, "--plot /proc/nope: cannot create directory /proc/nope: no such file or directory: want a directory", false}}, []badCase{{[]string{"--plot", "/dev/null"}, "--plot /dev/null: not a directory", false}}},
	"save":            {nil, []badCase{{[]string{"--save=x"}, "invalid argument", false}}},
	"results-dir":     {[]badCase{{[]string{"--save", "--results-dir", "/proc/self"}, "--results-dir", false}}, []badCase{{[]string{"--save", "--results-dir", "/dev/null/x"}, "--results-dir", false}}},
	"repeat":          {[]badCase{{[]string{"--repeat", "0"}, "must be 1..1000", false}}, []badCase{{[]string{"--repeat", "x"}, "invalid argument", false}}},
	"label":           {[]badCase{{[]string{"--label", strings.Repeat("l", 65)}, "up to 64 printable characters", false}}, []badCase{{[]string{"--label", "a/b"}, "no '/'", false}}},
	"loopback":        {nil, []badCase{{[]string{"--loopback=x"}, "invalid argument", false}}},
	"sizes":           {[]badCase{{[]string{"--sizes", "0"}, "at least 1 byte", false}}, []badCase{{[]string{"--sizes", "2,,4"}, `size ""`, false}}},
	"persistent":      {nil, []badCase{{[]string{"--persistent=x"}, "invalid argument", false}}},
	"numa-node":       {[]badCase{{[]string{"--numa-node", "1000"}, "--numa-node 1000: no such node", false}, {[]string{"--numa-node", "0", "--cpu", "0"}, "cannot go together", false}}, []badCase{{[]string{"--numa-node", "near"}, "want auto, off or a node number", false}}},
	"json-stream":     {nil, []badCase{{[]string{"--json-stream=x"}, "invalid argument", false}, {[]string{"--json-stream", "-o", "csv"}, "--json-stream is -o ndjson: it cannot go with -o csv", false}}},
	"expect":          {[]badCase{{[]string{"--expect", "bw>=150%link"}, "above 100% of the link rate", false}, {[]string{"--expect", "workload=tcp_lat bw>=1"}, "selects no point of this run", true}}, []badCase{{[]string{"--expect", "bw>=lots"}, "want a positive number", false}, {[]string{"--expect", "bw"}, "quote the expectation", false}}},
	"bind":            {[]badCase{{[]string{"--bind", "192.0.2.77"}, `--bind "192.0.2.77"`, false}}, []badCase{{[]string{"--bind", "::zz"}, `--bind "::zz"`, false}}},
}

// commandBase is what every bad value is given with: a command line that
// is valid but for it (the server's would listen: every case of it fails
// before).
var commandBase = map[string][]string{
	"run":    {"run", "write_bw"},
	"suite":  {"suite"},
	"server": {"server"},
}

func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// helpFlags lists the long flags a command's --help shows.
func helpFlags(t *testing.T, cmd string) []string {
	t.Helper()
	r := run(t, 10*time.Second, cmd, "--help")
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z][a-z-]*)`).FindAllStringSubmatch(r.stderr, -1) {
		out = append(out, m[1])
	}
	if len(out) < 10 {
		t.Fatalf("%s --help lists %d flags:\n%s", cmd, len(out), r.stderr)
	}
	return out
}

// TestBadInputEveryFlag tries, for every flag of run, suite and server,
// an out-of-range and a malformed value: each is refused with exit 2, a
// message naming what is allowed, no panic, in under a second. Inside the
// emulated VM, where a process takes seconds to start, only the cases that
// need a device run, without the time bound: the host ran the others.
func TestBadInputEveryFlag(t *testing.T) {
	binary(t)
	device := len(testenv.Devices()) > 0
	inVM := os.Getenv("RDMA_BENCH_IN_VM") != ""
	tried := 0
	for _, cmd := range []string{"run", "suite", "server"} {
		flags := helpFlags(t, cmd)
		for _, f := range flags {
			cases, ok := badInputs[f]
			if !ok {
				t.Errorf("%s --%s has no bad input cases: add them to badInputs", cmd, f)
				continue
			}
			if len(cases.malformed)+len(cases.outOfRange) == 0 {
				t.Errorf("%s --%s: no case", cmd, f)
			}
			for _, c := range slices.Concat(cases.outOfRange, cases.malformed) {
				if c.device && !device || inVM && !c.device {
					continue
				}
				if cmd != "run" && (f == "sweep-min" || f == "sweep-max" || f == "all") {
					continue // refused as flags the command does not take, tried below
				}
				args := slices.Concat(commandBase[cmd], c.args)
				if cmd != "server" && f != "loopback" {
					args = append(args, "--loopback")
				}
				start := time.Now()
				r := run(t, 30*time.Second, args...)
				tried++
				if r.code != 2 || !containsAny(r.stderr, strings.Split(c.want, "|")) || strings.Contains(r.stderr, "panic") {
					t.Errorf("rdma-bench %q: exit %d, stderr %q; want exit 2 and %q", args, r.code, r.stderr, c.want)
				}
				if d := time.Since(start); d > time.Second && !inVM {
					t.Errorf("rdma-bench %q: took %v to refuse", args, d)
				}
			}
		}
	}
	for _, c := range [][]string{
		{"suite", "--loopback", "-a"}, {"suite", "--loopback", "--sweep-min", "4"}, {"server", "--sweep-max", "4K"},
		{"server", "-a"}, {"run", "write_lat", "--loopback", "host"}, {"run", "write_lat", "[::1", "--token=x"},
	} {
		if r := run(t, 30*time.Second, c...); r.code != 2 || strings.Contains(r.stderr, "panic") {
			t.Errorf("rdma-bench %q: exit %d, %q", c, r.code, r.stderr)
		}
		tried++
	}
	t.Logf("%d bad command lines refused", tried)
}

// TestEmptyTokenKeepsEnv: an empty --token does not turn off the token
// RDMA_BENCH_TOKEN gives, on either side: it is refused.
func TestEmptyTokenKeepsEnv(t *testing.T) {
	t.Setenv(bench.TokenEnv, "secret")
	for _, args := range [][]string{
		{"server", "--token", ""},
		{"server", "--token="},
		{"run", "tcp_lat", "--loopback", "--token", ""},
	} {
		r := run(t, 30*time.Second, args...)
		if r.code != 2 || !strings.Contains(r.stderr, `--token "" would turn off the token RDMA_BENCH_TOKEN gives`) {
			t.Errorf("rdma-bench %q: exit %d, stderr %q; want exit 2 and a refusal", args, r.code, r.stderr)
		}
	}
}

// TestTCPRefusesRDMAFlags: an RDMA device flag given to a TCP baseline is
// refused, naming the flag, rather than silently not applied.
func TestTCPRefusesRDMAFlags(t *testing.T) {
	binary(t)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--mtu", "1024"}, "mtu"}, {[]string{"-I", "64"}, "inline-size"}, {[]string{"--sl", "1"}, "sl"},
		{[]string{"--tclass", "2"}, "tclass"}, {[]string{"-x", "1"}, "gid-index"}, {[]string{"-d", "mlx5_0"}, "ib-dev"},
		{[]string{"-i", "2"}, "ib-port"}, {[]string{"--odp"}, "odp"},
	} {
		for _, base := range [][]string{
			{"run", "tcp_lat", "--loopback"}, {"run", "tcp_bw", "--loopback"},
			{"fabric", "tcp_lat", "tcp_bw", "--plan", "--world-size", "2"},
		} {
			args := slices.Concat(base, c.args)
			r := run(t, 30*time.Second, args...)
			if want := "--" + c.flag + " does not apply to " + base[1]; r.code != 2 || !strings.Contains(r.stderr, want) {
				t.Errorf("rdma-bench %q: exit %d, stderr %q; want exit 2 and %q", args, r.code, r.stderr, want)
			}
		}
	}
}
