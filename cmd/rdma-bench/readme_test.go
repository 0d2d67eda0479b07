//go:build cgo

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// readmeCommands are the commands the README shows (in its code blocks,
// "$ ", "sudo " and trailing comments dropped; not the output below a
// "$ " command): rdma-bench with a
// subcommand, and vm/run.sh.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	// In a block that starts with "$ command", the lines without "$ " are
	// the command's output.
	output := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "    ") {
			output = output && line == ""
			continue
		}
		prompt := strings.HasPrefix(strings.TrimSpace(line), "$ ")
		if output && !prompt {
			continue
		}
		output = output || prompt
		c := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(line), "$ "), "sudo ")
		if i := strings.Index(c, "  #"); i >= 0 {
			c = c[:i]
		}
		c = strings.TrimSpace(c)
		f := strings.Fields(c)
		if len(f) < 2 {
			continue
		}
		// A command names a subcommand; output lines ("rdma-bench devel
		// (commit ...)") do not.
		if _, ok := commands[f[1]]; (f[0] == "rdma-bench" && ok) || f[0] == "vm/run.sh" {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// TestREADMECommands runs every rdma-bench command the README shows, as
// the README shows it (a host name becomes this host, with a free port;
// a network interface becomes a dummy one the test creates). A command
// the README gains without a case here fails the test.
func TestREADMECommands(t *testing.T) {
	labelled := t.TempDir() // the README's results/ of fw-A and fw-B
	cases := map[string]func(t *testing.T, args []string){
		"rdma-bench devices":                                                 runsOK("rxe"),
		"rdma-bench version":                                                 runsOK("rdma-bench "),
		"rdma-bench server":                                                  nil, // with the next one
		"rdma-bench run write_lat hostA -s 64":                               againstServer(false, "t_typical"),
		"rdma-bench run write_lat --loopback -s 64":                          runsOK("t_typical(p50)[usec]"),
		"rdma-bench run write_bw --loopback -a --sweep-max 64K -D 0.2":       runsOK("65536"),
		"rdma-bench server --persistent":                                     nil, // with the next one
		"rdma-bench suite hostA --sizes 64,64K":                              againstServer(true, "p50 ratio"),
		"rdma-bench suite --loopback --sizes 64,64K":                         runsOK("BW ratio"),
		"rdma-bench run write_lat --loopback -n 3000 --rate 3000,6000,12000": runsOK("load: write_lat 2 bytes: "),
		"rdma-bench softroce up --netdev eth0":                               softroceUpStatusDown,
		"rdma-bench softroce status":                                         nil, // in softroce
		"rdma-bench softroce down rxe0":                                      nil, // in softroce
		"vm/run.sh -- ./rdma-bench devices":                                  inVM("rxe"),
		"vm/run.sh -- ./rdma-bench run write_lat --loopback":                 inVM("t_typical"),

		// Pictures: saved documents are the fixtures; what is written goes
		// into a directory of the test's.
		"rdma-bench plot results/rdma-bench-20261123-180001-suite.json --dir plots":      pictures(0, "plots/latency_vs_size.svg", "plots/bandwidth_vs_size.png"),
		"rdma-bench report results/rdma-bench-20261123-180001-suite.json -o report.html": pictures(0, "report.html"),
		"rdma-bench suite --loopback --sizes 64,64K --save --plot plots": pictures(0, "plots/latency_vs_size.svg", "plots/cpu_per_gb_vs_size.png",
			"plots/spectrum_tcp_lat_TCP_poll_64KiB.svg"),
		"rdma-bench run write_lat --loopback -n 2000 --rate 2000,5000,10000 --plot plots": pictures(0, "plots/load_write_lat_RC_poll_2B.svg",
			"plots/spectrum_write_lat_RC_poll_2B.png"),
		"rdma-bench compare base.json new.json --plot plots":         pictures(3, "plots/comparison.svg"), // exit 3: one session a side
		"rdma-bench report new.json --base base.json -o report.html": pictures(0, "report.html"),

		// Comparing runs: two labelled suites, then compare reads them.
		"rdma-bench suite --loopback --sizes 64 -D 0.2 --repeat 5 --save --label fw-A": savesInto(labelled),
		"rdma-bench suite --loopback --sizes 64 -D 0.2 --repeat 5 --save --label fw-B": savesInto(labelled),
		"rdma-bench compare --base-label fw-A --label fw-B results/":                   comparesLabelled(labelled, `(?m)^\| write_lat RC poll 64 B +\| lat.p50 \(us\) +\|`),
		"rdma-bench compare --base-label fw-A --label fw-B -o markdown results/":       comparesLabelled(labelled, `(?m)^\| write_lat RC poll 64 B \| lat.p50 \(us\) \|`),
		// History: the nightly fixture (twenty sessions, a step three
		// sessions ago), its charts into a directory of the test's.
		"rdma-bench history results/ --plot plots": historyOfFixture,

		// The paired gate: the same binary on both sides, so it must not
		// fail; its document goes into a directory of the test's.
		"rdma-bench gate write_lat:64 write_bw:4K": gateAA,

		// Whole-fabric sweeps.
		"rdma-bench fabric write_lat write_bw --rank 0 --world-size 2 --coordinator hostA:18600": nil, // with the next one
		"rdma-bench fabric write_lat write_bw --rank 1 --world-size 2 --coordinator hostA:18600": fabricByHand,
		"rdma-bench fabric write_lat write_bw --plan --world-size 1024 -D 2":                     runsOK("2046 rounds"),
	}
	shown := readmeCommands(t)
	if len(shown) == 0 {
		t.Fatal("found no command in README.md")
	}
	for _, c := range shown {
		if _, ok := cases[c]; !ok {
			t.Errorf("README.md shows %q, which no test runs: add a case", c)
		}
	}
	testenv.Device(t)
	ran := map[string]bool{} // a command shown twice (with its output too) runs once
	for _, c := range shown {
		if f := cases[c]; f != nil && !ran[c] {
			ran[c] = true
			t.Run(c, func(t *testing.T) { f(t, strings.Fields(c)[1:]) })
		}
	}
}

// runsOK runs the command and wants exit 0 and want on stdout.
func runsOK(want string) func(*testing.T, []string) {
	return func(t *testing.T, args []string) {
		r := run(t, 5*time.Minute, args...)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("exit %d, want 0 and %q: %s\n%s\n%s", r.code, want, r.said(), r.stdout, r.stderr)
		}
	}
}

// againstServer starts `rdma-bench server` (--persistent) on a free port
// and runs the client command against it, hostA being this host.
func againstServer(persistent bool, want string) func(*testing.T, []string) {
	return func(t *testing.T, args []string) {
		port := testenv.FreePort(t)
		var srvArgs []string
		if persistent {
			srvArgs = append(srvArgs, "--persistent")
		}
		startServer(t, port, srvArgs...)
		for i, a := range args {
			if a == "hostA" {
				args[i] = "127.0.0.1"
			}
		}
		r := run(t, 5*time.Minute, append(args, "-p", port)...)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("exit %d, want 0 and %q: %s\n%s\n%s", r.code, want, r.said(), r.stdout, r.stderr)
		}
	}
}

// softroceUpStatusDown runs up, status and down on a dummy interface made for the
// test, with a device name of its own (rxe0 is the one the tests use).
func softroceUpStatusDown(t *testing.T, _ []string) {
	if os.Geteuid() != 0 {
		t.Skip("softroce up and down need root")
	}
	netdev, dev := fmt.Sprintf("rbr%d", os.Getpid()%10000), fmt.Sprintf("rxer%d", os.Getpid()%10000)
	if out, err := exec.Command("ip", "link", "add", netdev, "type", "dummy").CombinedOutput(); err != nil {
		t.Skipf("no dummy interface: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "link", "del", netdev).Run() })
	exec.Command("ip", "link", "set", netdev, "up").Run()
	if r := run(t, time.Minute, "softroce", "up", "--netdev", netdev, "--name", dev); r.code != 0 {
		t.Fatalf("softroce up: exit %d: %s", r.code, r.stderr)
	}
	if r := run(t, time.Minute, "softroce", "status"); r.code != 0 || !strings.Contains(r.stdout, dev) || !strings.Contains(r.stdout, netdev) {
		t.Errorf("softroce status: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, time.Minute, "softroce", "down", dev); r.code != 0 {
		t.Fatalf("softroce down: exit %d: %s", r.code, r.stderr)
	}
	if r := run(t, time.Minute, "softroce", "status"); strings.Contains(r.stdout, dev) {
		t.Errorf("%s still listed after down:\n%s", dev, r.stdout)
	}
}

// inVM runs a vm/run.sh command where it makes sense: inside the VM, where
// vm/run.sh runs the command directly (./rdma-bench being the binary under
// test); on a host with its own device it would boot a VM beside it.
func inVM(want string) func(*testing.T, []string) {
	return func(t *testing.T, args []string) {
		if os.Getenv("RDMA_BENCH_IN_VM") == "" {
			t.Skip("vm/run.sh runs in make test's VM; this host has a device of its own")
		}
		for i, a := range args {
			if a == "./rdma-bench" {
				args[i] = binary(t)
			}
		}
		cmd := exec.Command(filepath.Join("..", "..", "vm", "run.sh"), args...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("vm/run.sh %s: %v, want %q:\n%s", strings.Join(args, " "), err, want, out)
		}
	}
}

// pictures runs a plot, report, compare, or run or suite --plot command
// with the README's documents replaced by fixtures (base.json and a suite
// document by base.json, new.json by slower.json) and what it writes
// (plots, report.html, --save's results) put into a directory of the
// test's; it wants exit code and the files want there.
func pictures(code int, want ...string) func(*testing.T, []string) {
	return func(t *testing.T, args []string) {
		dir := t.TempDir()
		for i, a := range args {
			switch {
			case a == "base.json" || strings.HasPrefix(a, "results/rdma-bench-"):
				args[i] = fixtures + "base.json"
			case a == "new.json":
				args[i] = fixtures + "slower.json"
			case a == "plots" || a == "report.html":
				args[i] = filepath.Join(dir, a)
			case a == "--save":
				args = append(args, "--results-dir", filepath.Join(dir, "results"))
			}
		}
		r := run(t, 5*time.Minute, args...)
		if r.code != code {
			t.Fatalf("exit %d, want %d: %s\n%s\n%s", r.code, code, r.said(), r.stdout, r.stderr)
		}
		for _, w := range want {
			if _, err := os.Stat(filepath.Join(dir, w)); err != nil {
				t.Errorf("%s not written: %v", w, err)
			}
		}
	}
}

// savesInto runs a --save command with its results in dir; it wants exit 0.
func savesInto(dir string) func(*testing.T, []string) {
	return func(t *testing.T, args []string) {
		r := run(t, 10*time.Minute, append(args, "--results-dir", dir)...)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0: %s\n%s\n%s", r.code, r.said(), r.stdout, r.stderr)
		}
	}
}

// comparesLabelled runs a compare of the README's results/ (dir, where
// savesInto saved fw-A and fw-B, a session each): the sides, a row of
// every point (row, a pattern), the reason one session a side decides
// nothing, and the gate's line, its exit status the command's.
func comparesLabelled(dir, row string) func(*testing.T, []string) {
	return func(t *testing.T, args []string) {
		for i, a := range args {
			if a == "results/" {
				args[i] = dir
			}
		}
		r := run(t, time.Minute, args...)
		gate := regexp.MustCompile(`gate (pass|fail|inconclusive)(\*\*)? \(exit (\d)\)`).FindStringSubmatch(r.stdout)
		if gate == nil || gate[3] != strconv.Itoa(r.code) {
			t.Fatalf("exit %d, want the gate's line with the same status:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if !regexp.MustCompile(row).MatchString(r.stdout) {
			t.Errorf("no row matching %s in:\n%s", row, r.stdout)
		}
		// One suite a label, run one after the other: one session a side,
		// which decides nothing and says so.
		for _, want := range []string{"fw-A", "fw-B", "send_bw RC poll 64 B", "tcp_lat TCP poll 64 B", "one session a side"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("no %q in:\n%s", want, r.stdout)
			}
		}
		t.Logf("A/A comparison: %s (exit %d)", gate[0], r.code)
	}
}

// historyOfFixture runs the README's history of the nightly fixture
// (testdata/compare/history: write_lat 64 B 10% slower from session 18):
// exit 1, the step named, a chart per series.
func historyOfFixture(t *testing.T, args []string) {
	dir := t.TempDir()
	for i, a := range args {
		switch a {
		case "results/":
			args[i] = fixtures + "history/"
		case "plots":
			args[i] = filepath.Join(dir, "plots")
		}
	}
	r := run(t, time.Minute, args...)
	if r.code != 1 || !strings.Contains(r.stdout, "write_lat RC poll 64 B lat.p50: step at session 18") {
		t.Fatalf("exit %d, want 1 and the step:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "history_write_lat_RC_poll_64B_lat.p50.svg")); err != nil {
		t.Errorf("no chart of the step: %v", err)
	}
}

// gateAA runs an A/A gate as the README shows it: exit 0 (pass) or 3
// (undecided), never 1, with the table and the gate's line last. The
// false-alarm budget is lowered from 1% to 0.01%, so that the test checks
// the command, not the statistics, and does not fail one run in a hundred.
func gateAA(t *testing.T, args []string) {
	r := run(t, 10*time.Minute, append(args, "--save-dir", t.TempDir(), "--alpha", "0.0001")...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if (r.code != 0 && r.code != 3) || !strings.Contains(r.stdout, "| write_lat 64 B ") || !strings.HasPrefix(lines[len(lines)-1], "gate ") {
		t.Fatalf("exit %d, want 0 or 3, the table and the gate's line:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
