//go:build cgo

package perftestflags_test

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/perftestflags"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// runFlags is run's flag set, as cmd/rdma-bench's runRun builds it (its
// --plot and --loopback are cmd's own).
func runFlags() (*pflag.FlagSet, *bench.Flags, *bench.Output) {
	fs := pflag.NewFlagSet("rdma-bench run", pflag.ContinueOnError)
	fs.SortFlags = false
	var b bench.Flags
	var o bench.Output
	b.Register(fs)
	o.Register(fs, report.DefaultEncoder)
	(&bench.Repeat{}).Register(fs)
	(&bench.Expect{}).Register(fs)
	fs.String("plot", "", "")
	fs.Bool("loopback", false, "")
	fs.SetOutput(io.Discard) // -h's usage
	return fs, &b, &o
}

// parsePerftest parses args as run does, returning the notes too.
func parsePerftest(args ...string) (*pflag.FlagSet, *bench.Flags, *bench.Output, []string, error) {
	fs, b, o := runFlags()
	out, notes, err := perftestflags.Args(fs, args)
	if err == nil {
		err = fs.Parse(out)
	}
	return fs, b, o, notes, err
}

// Every row agrees with rdma-bench's flags: an alias or a same names a
// flag that exists, takes a value as perftest's does, and, where both
// have a letter, the same one; a no-op or a hint names a spelling
// rdma-bench does not have, or says which of its flags it collides with.
func TestPerftestTableAgreesWithFlags(t *testing.T) {
	fs, _, _ := runFlags()
	for _, e := range perftestflags.Table {
		own := fs.Lookup(e.Long)
		var ownShort *pflag.Flag
		if e.Short != "" {
			ownShort = fs.ShorthandLookup(e.Short)
		}
		switch e.Action {
		case perftestflags.Same, perftestflags.Alias:
			if e.To == "help" {
				continue // pflag's own
			}
			f := fs.Lookup(e.To)
			if f == nil {
				t.Errorf("--%s: %s of --%s, which run does not have", e.Long, actionName[e.Action], e.To)
				continue
			}
			if takes := f.NoOptDefVal == ""; takes != (e.Value || e.Set != "") || (e.Set != "" && e.Value) {
				t.Errorf("--%s: perftest's takes a value: %t; rdma-bench's --%s: %t", e.Long, e.Value, e.To, takes)
			}
			if e.Action == perftestflags.Same && e.Long != e.To {
				t.Errorf("--%s: same, but rdma-bench spells it --%s: an alias", e.Long, e.To)
			}
			if ownShort != nil && ownShort != f {
				t.Errorf("-%s: perftest's means --%s, rdma-bench's --%s: the row must say so (collides)", e.Short, e.To, ownShort.Name)
			}
			if e.Short != "" && ownShort == nil && e.Action == perftestflags.Same {
				t.Errorf("-%s: same, but rdma-bench has no -%s", e.Short, e.Short)
			}
		default:
			if e.Why == "" {
				t.Errorf("--%s: %s without a reason", e.Long, actionName[e.Action])
			}
			for _, f := range []*pflag.Flag{own, ownShort} {
				if f != nil && e.Collides != f.Name {
					t.Errorf("--%s (-%s): %s, but rdma-bench has --%s: mark it collides", e.Long, e.Short, actionName[e.Action], f.Name)
				}
			}
		}
	}
}

// What each action does to a command line: an alias sets rdma-bench's
// flag, its value translated; a no-op is dropped with a note; a hint is
// refused, naming the flag and what to use instead.
func TestPerftestArgs(t *testing.T) {
	fs, b, _, notes, err := parsePerftest("-A", "CMP_AND_SWAP", "-S3", "--post_list", "8", "--inline_size=64", "--rdma_cm", "--bidirectional", "-n", "500")
	if err != nil || len(notes) != 0 {
		t.Fatalf("%v %v", err, notes)
	}
	if b.Spec.Atomic != "cswap" || b.Local.SL != 3 || b.Spec.PostList != 8 || b.Local.Inline != 64 || !b.Spec.RDMACM || !b.Spec.Bidir || b.Spec.Iterations != 500 {
		t.Errorf("parsed %+v %+v", b.Spec, b.Local)
	}
	if !fs.Changed("sl") || !fs.Changed("post-list") {
		t.Error("aliases do not count as given")
	}
	for _, args := range [][]string{{"--atomic_type=fetch_and_add"}, {"-AFETCH_AND_ADD"}, {"-A=FETCH_AND_ADD"}, {"--atomic", "fadd"}} {
		if _, b, _, _, err := parsePerftest(args...); err != nil || b.Spec.Atomic != "fadd" {
			t.Errorf("%q: atomic %q, %v", args, b.Spec.Atomic, err)
		}
	}
	// perftest's huge pages and shared receive queues are rdma-bench's.
	if _, b, _, _, err := parsePerftest("--use_hugepages", "--use-srq", "--use_old_post_send"); err != nil || !b.Spec.HugePages || !b.Spec.SRQ || b.Spec.PostAPI != "classic" {
		t.Errorf("--use_hugepages --use-srq --use_old_post_send: hugepages %t srq %t post api %q, %v", b.Spec.HugePages, b.Spec.SRQ, b.Spec.PostAPI, err)
	}
	// Upstream's spellings of rdma-bench's switches and of --cpu.
	if _, b, _, notes, err := parsePerftest("--write_with_imm", "--data_validation", "--pin_cores=3", "--comm_rdma_cm"); err == nil || !strings.Contains(err.Error(), "--comm_rdma_cm (perftest's)") || len(notes) != 0 {
		t.Errorf("--comm_rdma_cm: %v", err)
	} else if _, b, _, _, err = parsePerftest("--write_with_imm", "--data_validation", "--pin_cores=3", "--disable_dynamic_polling"); err != nil || !b.Spec.Imm || !b.Spec.Validate || b.Local.CPU != 3 {
		t.Errorf("--write_with_imm --data_validation --pin_cores=3: imm %t validate %t cpu %d, %v", b.Spec.Imm, b.Spec.Validate, b.Local.CPU, err)
	}
	// perftest 26.04's NUMA placement: --numa_node N, --disable_numa.
	if _, b, _, _, err := parsePerftest("--numa_node", "1"); err != nil || b.Local.NUMA != 1 {
		t.Errorf("--numa_node 1: node %d, %v", b.Local.NUMA, err)
	}
	if _, b, _, _, err := parsePerftest("--disable_numa"); err != nil || b.Local.NUMA != workloads.NUMAOff {
		t.Errorf("--disable_numa: node %d, %v", b.Local.NUMA, err)
	}
	// A cluster is split at a perftest letter; -b stays rdma-bench's.
	if _, b, _, _, err := parsePerftest("-bS", "5"); err != nil || !b.Spec.Bidir || b.Local.SL != 5 {
		t.Errorf("-bS 5: bidir %t sl %d, %v", b.Spec.Bidir, b.Local.SL, err)
	}
	// No-ops: ignored, one note each, nothing set.
	fs, _, _, notes, err = parsePerftest("--report_gbits", "-F", "-N", "--cpu_util", "--perform_warm_up", "--disable_pcie_relaxed")
	if err != nil || len(notes) != 6 || fs.NFlag() != 0 {
		t.Errorf("no-ops: %v, notes %q, %d flags set", err, notes, fs.NFlag())
	}
	if !strings.Contains(notes[0], "--report_gbits (perftest's) honoured: -o perftest prints perftest's Gb/sec columns") {
		t.Errorf("note %q", notes[0])
	}
	// rdma-bench's values, and what follows "--", are never rewritten.
	if _, b, _, notes, err := parsePerftest("--token", "--report_gbits", "--label", "-S"); err != nil || b.Local.Token != "--report_gbits" || len(notes) != 0 {
		t.Errorf("a value that looks like a perftest flag: token %q, %v, %q", b.Local.Token, err, notes)
	}
	if out, _, err := perftestflags.Args(pflag.NewFlagSet("x", pflag.ContinueOnError), []string{"--", "-S", "--report_gbits"}); err != nil || !slices.Equal(out, []string{"--", "-S", "--report_gbits"}) {
		t.Errorf("after --: %q, %v", out, err)
	}
	for _, c := range []struct{ args, want string }{
		{"--run_infinitely", "unknown flag --run_infinitely (perftest's): runs have an end: use -D SECONDS with --report-interval 1s"},
		{"-T 3", "unknown flag -T (perftest's): use --tclass N"},
		{"-bT 3", "unknown flag -T (perftest's)"},
		{"-M ff0e::1", "unknown flag -M (perftest's): choosing the multicast group is not supported: -g chooses one per run"},
		{"--outs=4", "unknown flag --outs (perftest's): rdma-bench always allows the device's maximum"},
		{"--nosuch", "unknown flag: --nosuch"},
		{"-9", "unknown shorthand flag: '9' in -9"},
		// Upstream's options: GPU memory, raw Ethernet, a value --cpu cannot take.
		{"--use_cuda=0", "unknown flag --use_cuda (perftest's): GPU memory is not supported: rdma-bench registers host memory only"},
		{"--use_rocm_dmabuf", "unknown flag --use_rocm_dmabuf (perftest's): GPU memory is not supported"},
		{"--use_musa 1", "GPU memory is not supported"},
		{"-E 00:11:22:33:44:55", "unknown flag -E (perftest's): raw Ethernet (raw_ethernet_* tests, raw packet QPs) is not supported"},
		{"--pin_cores 0-3", "--pin_cores 0-3 (perftest's): one CPU N: rdma-bench pins measuring thread i to CPU N+i"},
		{"--send_with_imm", "SEND with immediate is not supported: --imm is RDMA WRITE with immediate"},
		{"--report-histogrm", "unknown flag --report-histogrm (perftest's): use -o hgrm"},
	} {
		_, _, _, _, err := parsePerftest(strings.Fields(c.args)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
}

// rdma-bench's -o and --output are the output format; perftest's values
// of them (-o 16: outstanding reads; --output=bandwidth) get the hint.
func TestPerftestCollisions(t *testing.T) {
	for _, c := range []struct {
		args string
		want []string
	}{
		{"-o 16", []string{`unknown output "16": choose one of table, json, csv, hgrm, perftest`, "; perftest's -o/--outs 16? rdma-bench always allows the device's maximum"}},
		{"--output=message_rate", []string{`unknown output "message_rate"`, "; perftest's --output message_rate? rdma-bench's --output is the format: -o perftest"}},
		{"-o xml", []string{`unknown output "xml"`}},
	} {
		_, _, o, _, err := parsePerftest(strings.Fields(c.args)...)
		if err == nil {
			err = o.Check()
		}
		if err == nil {
			t.Errorf("%s: accepted", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", c.args, err, w)
			}
		}
		if len(c.want) == 1 && strings.Contains(err.Error(), "perftest's") {
			t.Errorf("%s: a hint for a value perftest does not have: %v", c.args, err)
		}
	}
}

// rowValue is a value perftest's flag takes, and rdma-bench's too.
func rowValue(e perftestflags.Flag) string {
	switch e.Long {
	case "atomic_type":
		return "CMP_AND_SWAP"
	case "connection":
		return "UC"
	case "ib-dev":
		return "mlx5_1"
	case "mtu":
		return "1024"
	case "size":
		return "64"
	case "port":
		return "18600"
	}
	return "2"
}

// Every row, in each of perftest's spellings, does what the table says.
func TestPerftestEveryRow(t *testing.T) {
	for _, e := range perftestflags.Table {
		for _, sp := range []string{"-" + e.Short, "--" + e.Long} {
			if sp == "-" || e.Collides != "" && (sp == "-"+e.Short || sp == "--"+e.Collides) {
				continue // rdma-bench's own spelling: TestPerftestCollisions
			}
			args := []string{sp}
			if e.Value {
				args = append(args, rowValue(e))
			}
			fs, _, _, notes, err := parsePerftest(args...)
			switch {
			case e.To == "help":
				if !errors.Is(err, pflag.ErrHelp) {
					t.Errorf("%s: %v, want help", sp, err)
				}
			case e.Action == perftestflags.Same || e.Action == perftestflags.Alias:
				if err != nil || !fs.Changed(e.To) || len(notes) != 0 {
					t.Errorf("%q: %v, --%s set %t, notes %q", args, err, e.To, fs.Changed(e.To), notes)
				} else if got, want := strings.Trim(fs.Lookup(e.To).Value.String(), "[]"), e.Translate(rowValue(e)); e.Value && !strings.EqualFold(got, want) && !strings.HasPrefix(got, want) {
					t.Errorf("%q: --%s is %q, want %q", args, e.To, got, want)
				}
			case e.Action == perftestflags.Noop || e.Action == perftestflags.Kept:
				if err != nil || len(notes) != 1 || fs.NFlag() != 0 || !strings.Contains(notes[0], e.Why) {
					t.Errorf("%q: %v, notes %q, %d flags set", args, err, notes, fs.NFlag())
				}
			default:
				want := "unknown flag " + sp + " (perftest's): " + e.Why
				var bad *perftestflags.HintError
				if !errors.As(err, &bad) || err.Error() != want {
					t.Errorf("%q: %v, want %q", args, err, want)
				}
			}
		}
	}
}

// perftest's -g and --mcg are rdma-bench's switch of the same spelling.
func TestPerftestMcg(t *testing.T) {
	for _, args := range [][]string{{"-g"}, {"--mcg"}, {"-bg"}} {
		if _, b, _, notes, err := parsePerftest(args...); err != nil || !b.Spec.Mcast || len(notes) != 0 {
			t.Errorf("%q: mcast %t, notes %q, %v", args, b.Spec.Mcast, notes, err)
		}
	}
}

// perftest's program names as workloads: raw Ethernet refused with the
// reason, ib_* naming rdma-bench's workload.
func TestPerftestWorkload(t *testing.T) {
	for name, want := range map[string]string{
		"raw_ethernet_bw":        "perftest's raw_ethernet_bw: raw Ethernet (raw_ethernet_* tests, raw packet QPs) is not supported",
		"raw_ethernet_burst_lat": "perftest's raw_ethernet_burst_lat: raw Ethernet",
		"ib_write_bw":            "perftest's ib_write_bw is rdma-bench's write_bw",
		"ib_atomic_lat":          "perftest's ib_atomic_lat is rdma-bench's atomic_lat",
		"ib_nosuch":              "",
		"write_bw":               "",
	} {
		if got := perftestflags.Workload(name); !strings.HasPrefix(got, want) || (want == "") != (got == "") {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// actionName names an action in a failure's message.
var actionName = map[perftestflags.Action]string{
	perftestflags.Same: "same", perftestflags.Alias: "alias", perftestflags.Noop: "no-op", perftestflags.Hint: "hint", perftestflags.Kept: "kept",
}
