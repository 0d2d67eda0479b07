package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// engineSampleBytes is what one RDMA engine's sample buffers take: 64 Ki
// (time, count) pairs, and the latency samples of a socket loop call.
const (
	engineSampleBytes = (1<<16 + 1) * 16
	sockSampleBytes   = (latChunk + 1) * 8
	// histogramBytes bounds one latency histogram (1 ns .. 1 h, 3
	// significant digits) with its copies for live figures.
	histogramBytes = 4 << 20
)

// Memory is what one side of a run allocates: Pinned is registered with
// the RDMA device (it counts against the locked-memory limit), Total
// includes it.
type Memory struct {
	Pinned, Total uint64
	// HugePages is the 2 MiB pages the registered buffers take with
	// --use-hugepages, else 0.
	HugePages int64
}

// MemoryOf estimates what a side of s (resolved) allocates: the
// registered buffers (two regions per queue pair), the loops' sample
// buffers and, on the client, the latency samples kept (every one in
// iteration mode, a histogram in duration mode) for runs runs.
func MemoryOf(s point.Resolved, client bool, runs int) Memory {
	w, _ := catalog.Lookup(s.Workload)
	var m Memory
	if w.Family == catalog.RDMA {
		grh := 0
		if s.Transport == "UD" {
			grh = udGRH
		}
		region := s.Slots() * roundUp(s.Size+grh, 64)
		// What is registered (and counts against the locked-memory
		// limit) is the regions; huge pages round what is mapped up.
		qps := max(s.QPs, 1) + s.Loaders // a loader has a QP of its own
		m.Pinned = uint64(qps) * 2 * uint64(region)
		mapped := m.Pinned
		if s.HugePages {
			m.HugePages = int64(qps) * 2 * verbs.HugePagesFor(region)
			mapped = uint64(m.HugePages) * verbs.HugePageBytes
		}
		m.Total = mapped + uint64(s.Workers())*engineSampleBytes
	} else {
		m.Total = 2*uint64(s.Size) + sockSampleBytes
	}
	if client && w.Latency() {
		if s.Duration > 0 {
			m.Total += histogramBytes * uint64(runs)
		} else {
			m.Total += uint64(s.Iterations+s.Warmup) * 8 * uint64(runs)
		}
	}
	return m
}

// CheckMemory refuses a run that needs more memory than this side allows
// (--max-memory, else half of the host's memory, and the locked-memory
// limit for what is registered): the error gives the figures and what to
// change. who names the side for the message.
func (l Local) CheckMemory(need Memory, who string) error {
	total, what := l.memoryBound()
	if total > 0 && need.Total > total {
		return fmt.Errorf("the run needs %s of memory on the %s, above %s (%s): lower -s, -q or -n (-D keeps latency in bounded memory)",
			mib(need.Total), who, mib(total), what)
	}
	if need.HugePages > 0 {
		if err := verbs.CheckHugePages(need.HugePages); err != nil {
			return fmt.Errorf("on the %s: %w", who, err)
		}
	}
	var rl unix.Rlimit
	if need.Pinned > 0 && unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl) == nil && rl.Cur != unix.RLIM_INFINITY && need.Pinned > rl.Cur {
		return fmt.Errorf("the run registers %s of memory on the %s, above its locked-memory limit of %s: raise it (ulimit -l, or memlock in /etc/security/limits.d) or lower -s or -q",
			mib(need.Pinned), who, mib(rl.Cur))
	}
	return nil
}

// memoryBound is what one run may allocate on this side and what says
// so: --max-memory, a share of it (Share), or half of the host's memory.
func (l Local) memoryBound() (uint64, string) {
	switch {
	case l.memoryShare != "":
		return l.MaxMemory, l.memoryShare
	case l.MaxMemory > 0:
		return l.MaxMemory, "--max-memory"
	}
	return hostMemory() / 2, "half of this host's memory"
}

// Share is l for one of k runs served at once by this process (an incast
// receiver's servers, one a listener): its memory bound split k ways, so
// that the k runs together stay within it. The refusal names the share.
func (l Local) Share(k int) Local {
	if k <= 1 {
		return l
	}
	total, what := l.memoryBound()
	l.MaxMemory = total / uint64(k)
	l.memoryShare = fmt.Sprintf("1/%d of %s, for %d runs at once", k, what, k)
	return l
}

func mib(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" }

// hostMemory is MemTotal from /proc/meminfo in bytes; 0 when unknown.
func hostMemory() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var kb uint64
		if n, _ := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); n == 1 {
			return kb << 10
		}
	}
	return 0
}
