package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// sh runs a command line that must succeed.
func sh(t *testing.T, cmdline string) {
	t.Helper()
	if out, err := exec.Command("sh", "-c", cmdline).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmdline, err, out)
	}
}

// needNetem skips (on a host whose kernel lacks it, or as a non-root
// user) or fails (in the VM, whose kernel has it) a test that adds a
// netem qdisc: it tries one in a throwaway network namespace.
func needNetem(t *testing.T) {
	t.Helper()
	inVM := os.Getenv("RDMA_BENCH_IN_VM") != ""
	skip := func(why string) {
		if inVM {
			t.Fatalf("in the VM, %s", why)
		}
		t.Skipf("%s: the VM runs this test (make test)", why)
	}
	if os.Geteuid() != 0 {
		skip("not root: cannot add network namespaces and qdiscs")
	}
	ns := fmt.Sprintf("rbprobe%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		skip(fmt.Sprintf("ip netns add: %v %s", err, out))
	}
	defer exec.Command("ip", "netns", "del", ns).Run()
	if out, err := exec.Command("tc", "-n", ns, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms").CombinedOutput(); err != nil {
		skip(fmt.Sprintf("this kernel cannot add a netem qdisc (%v: %s)", err, strings.TrimSpace(string(out))))
	}
}

// TestAccuracyDelayTCP adds a known delay to the TCP baseline's path,
// netem on lo inside a network namespace the test creates, and checks
// that half the round trip (tcp_lat's figure) rises by it (checkDelay).
func TestAccuracyDelayTCP(t *testing.T) {
	needNetem(t)
	ns := fmt.Sprintf("rbacc%d", os.Getpid())
	sh(t, "ip netns add "+ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	sh(t, "ip -n "+ns+" link set lo up")
	in := []string{"ip", "netns", "exec", ns}
	base := runResults(t, time.Minute, in, "run", "tcp_lat", "--loopback", "-n", "300")[0].LatencyUS.P50
	const delay = 100 * time.Millisecond
	sh(t, fmt.Sprintf("tc -n %s qdisc add dev lo root netem delay %dms", ns, delay.Milliseconds()))
	delayed := runResults(t, time.Minute, in, "run", "tcp_lat", "--loopback", "-n", "11")[0].LatencyUS.P50
	checkDelay(t, "tcp_lat p50", base, delayed, delay, 0)
}

// vethRXE sets up rxea on veth0 and rxeb on veth1 (testdata/veth-rxe.sh):
// two soft-RoCE devices whose traffic passes the veths' qdiscs, unlike one
// device talking to itself.
func vethRXE(t *testing.T) {
	t.Helper()
	testenv.Device(t)
	needNetem(t)
	if _, err := exec.LookPath("rdma"); err != nil {
		t.Fatalf("iproute2's rdma tool is missing: %v", err)
	}
	exec.Command("bash", "testdata/veth-rxe.sh", "down").Run()
	sh(t, "bash testdata/veth-rxe.sh up")
	t.Cleanup(func() { exec.Command("bash", "testdata/veth-rxe.sh", "down").Run() })
}

// timerLateness is how late this machine's kernel timers fire: the median
// overshoot of 15 sleeps of d on a high-resolution timer, the kind netem
// delays packets with. Under QEMU TCG it is most of a millisecond; a
// delay added by netem arrives that much late, and a measurement of it
// may rightly show it.
func timerLateness(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var over []time.Duration
	for tries := 0; len(over) < 15; tries++ {
		ts := syscall.NsecToTimespec(d.Nanoseconds())
		start := time.Now()
		err := syscall.Nanosleep(&ts, nil)
		if errors.Is(err, syscall.EINTR) && tries < 100 {
			continue // a signal (Go's preemption, SIGURG) cut the sleep short: not a sample
		}
		if err != nil {
			t.Fatal(err)
		}
		over = append(over, time.Since(start)-d)
	}
	slices.Sort(over)
	return over[len(over)/2]
}

// checkDelay checks that a figure rose by a delay added to its path: by
// no less than 2% under it, by no more than 2% over it plus the timers'
// lateness: the larger of what nanosleep measures here and otherLate
// (microseconds; another measure of the same path's, or 0).
func checkDelay(t *testing.T, what string, base, delayed float64, delay time.Duration, otherLate float64) {
	t.Helper()
	late := timerLateness(t, delay)
	d, l := float64(delay.Microseconds()), max(float64(late.Nanoseconds())/1e3, otherLate)
	rise := delayed - base
	t.Logf("%s: %.1f us, with the delay %.1f us: rose %.1f us for a delay of %.0f us (%+.2f%%); the timers fire %.1f us late (%+.2f%% with it)",
		what, base, delayed, rise, d, (rise/d-1)*100, l, (rise/(d+l)-1)*100)
	if rise < 0.98*d || rise > 1.02*d+l {
		t.Errorf("%s rose %.1f us for a delay of %.0f us: want %.0f to %.0f us (2%% either side, plus %.1f us of timer lateness)", what, rise, d, 0.98*d, 1.02*d+l, l)
	}
}

// TestAccuracyVeth runs RDMA between rxea and rxeb, whose traffic passes
// the veths' qdiscs: netem delays on both are recovered by send_lat's
// half round trip (never less than the delay, and one for one between two
// delays); a netem loss makes the run's counters not clean.
func TestAccuracyVeth(t *testing.T) {
	vethRXE(t)
	port := testenv.FreePort(t)
	startServer(t, port, "--persistent", "-d", "rxeb")
	client := func(args ...string) accResult {
		return runResults(t, 2*time.Minute, nil, slices.Concat([]string{"run"}, args, []string{"127.0.0.1", "-p", port, "-d", "rxea"})...)[0]
	}
	t.Run("delay", func(t *testing.T) {
		// Two delays each way, the longer's round trip under the QPs' 67
		// ms ACK timeout. send_lat -e blocks in the kernel between
		// messages: busy polling on both vCPUs would hold back the
		// softirqs that release netem's packets (write_lat rose 1 to 2
		// ms more than ping).
		short, long := 4*time.Millisecond, 24*time.Millisecond
		p50 := map[time.Duration]float64{}
		late := map[time.Duration]float64{}
		defer sh(t, "tc qdisc del dev veth0 root; tc qdisc del dev veth1 root")
		for _, delay := range []time.Duration{short, long} {
			for _, dev := range []string{"veth0", "veth1"} {
				sh(t, fmt.Sprintf("tc qdisc replace dev %s root netem delay %dus", dev, delay.Microseconds()))
			}
			p50[delay] = client("send_lat", "-e", "-n", "100").LatencyUS.P50
			late[delay] = float64(timerLateness(t, delay).Nanoseconds()) / 1e3
			d := float64(delay.Microseconds())
			t.Logf("send_lat -e p50 %.1f us with a delay of %.0f us each way (%+.2f%%); the timers fire %.1f us late", p50[delay], d, (p50[delay]/d-1)*100, late[delay])
			// Both messages of a round trip waited the delay: half of it
			// can never be less (a figure against its own undelayed
			// run can: a host's load slows that run more).
			if p50[delay] < 0.98*d {
				t.Errorf("send_lat -e p50 %.1f us with a delay of %.0f us each way: want at least %.0f us (2%% under)", p50[delay], d, 0.98*d)
			}
		}
		// What the emulator adds beside the delay (netem's timer firing
		// late, a vCPU woken from idle, rxe's tasklets run late, 1 to 2
		// ms under TCG) is there at both delays and cancels: the
		// difference of the p50s is the difference of the delays, within
		// 2%, plus at most one timer's lateness (how late a timer fires
		// is what may differ between the two: under a host's load it
		// grows with the idle time before it).
		d := float64((long - short).Microseconds())
		slope, l := p50[long]-p50[short], max(late[short], late[long])
		t.Logf("between the delays the p50 rose %.1f us for %.0f us (%+.2f%%); the timers fire up to %.1f us late", slope, d, (slope/d-1)*100, l)
		if slope < 0.98*d-l || slope > 1.02*d+l {
			t.Errorf("send_lat -e p50 rose %.1f us more at %v than at %v: want %.0f to %.0f us (2%% either side of %.0f us, plus %.1f us of timer lateness)",
				slope, long, short, 0.98*d-l, 1.02*d+l, d, l)
		}
	})
	t.Run("loss makes a run not clean", func(t *testing.T) {
		sh(t, "tc qdisc replace dev veth0 root netem loss 5%")
		defer sh(t, "tc qdisc del dev veth0 root")
		res := client("write_bw", "-n", "2000", "-s", "4K")
		if res.Counters == nil || res.Clean == nil || *res.Clean {
			t.Fatalf("a run through 5%% loss: clean %v, counters %+v", res.Clean, res.Counters)
		}
		t.Logf("verdict: %s; %s", res.Counters.Verdict, res.Counters.Wire)
	})
}

// TestAccuracyCounters: the packets the port's counters saw agree with
// what rdma-bench posted, within the expected overhead of headers, acks
// and (counted) retransmissions, for every kind of operation.
func TestAccuracyCounters(t *testing.T) {
	testenv.Device(t)
	for _, c := range [][]string{
		{"write_bw", "-n", "2000", "-s", "8K"}, {"read_bw", "-n", "1000", "-s", "8K"}, {"send_bw", "-n", "2000", "-s", "1K"},
		{"send_bw", "-n", "2000", "-c", "UD", "-s", "1K"}, {"atomic_bw", "-n", "1000"}, {"write_lat", "-n", "1000"},
		{"send_lat", "-n", "1000"}, {"read_lat", "-n", "500"},
	} {
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			res := runResults(t, 2*time.Minute, nil, slices.Concat([]string{"run"}, c, []string{"--loopback"})...)[0]
			if res.Counters == nil {
				t.Fatal("no counters")
			}
			t.Logf("%s; %s", res.Counters.Verdict, res.Counters.Wire)
			if !strings.HasPrefix(res.Counters.Wire, "within the expected overhead") {
				t.Errorf("wire check: %q", res.Counters.Wire)
			}
		})
	}
}
