package workloads

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// fakeNUMA builds a sysfs tree: nodes (node -> cpulist), the online CPUs,
// and devices (name -> numa_node, "" for a device without one, as rxe);
// the process may run on allowed.
func fakeNUMA(t *testing.T, nodes map[int]string, online string, devices map[string]string, allowed []int) sysTree {
	t.Helper()
	root := t.TempDir()
	write := func(rel, v string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var ids []int
	for n, cpus := range nodes {
		ids = append(ids, n)
		write("devices/system/node/node"+itoa(n)+"/cpulist", cpus)
	}
	slices.Sort(ids)
	write("devices/system/node/online", FormatCPUList(ids))
	write("devices/system/cpu/online", online)
	for d, node := range devices {
		if node == "" {
			write("class/infiniband/"+d+"/ports/1/rate", "10 Gb/sec (1X QDR)")
			continue
		}
		write("class/infiniband/"+d+"/device/numa_node", node)
	}
	return sysTree{root: root, allowed: func() ([]int, error) { return allowed, nil }}
}

func itoa(n int) string { return FormatCPUList([]int{n}) }

func cpus(lo, hi int) []int {
	var out []int
	for c := lo; c <= hi; c++ {
		out = append(out, c)
	}
	return out
}

// The placement rules on a two-node machine and on a one-node VM: the
// device's node by default, unless the affinity is restricted or --cpu is
// given; --numa-node N and off; what cannot be honoured refused.
func TestPlace(t *testing.T) {
	two := map[int]string{0: "0-3", 1: "4-7"}
	devs := map[string]string{"mlx5_0": "1", "mlx5_1": "0", "nonuma": "-1", "rxe0": ""}
	all := cpus(0, 7)
	local := func(numa, cpu int) Local {
		l := DefaultLocal()
		l.NUMA, l.CPU = numa, cpu
		return l
	}
	cases := []struct {
		name    string
		sys     sysTree
		l       Local
		dev     string
		node    int
		cpus    string
		why     string
		wantErr string
	}{
		{"device's node", fakeNUMA(t, two, "0-7", devs, all), local(NUMAAuto, -1), "mlx5_0", 1, "4-7", "mlx5_0's NUMA node, from sysfs", ""},
		{"other device", fakeNUMA(t, two, "0-7", devs, all), local(NUMAAuto, -1), "mlx5_1", 0, "0-3", "mlx5_1's NUMA node", ""},
		{"node -1", fakeNUMA(t, two, "0-7", devs, all), local(NUMAAuto, -1), "nonuma", -1, "", "not placed: the kernel gives nonuma no NUMA node", ""},
		{"rxe, no numa_node", fakeNUMA(t, two, "0-7", devs, all), local(NUMAAuto, -1), "rxe0", -1, "", "not placed: the kernel gives rxe0 no NUMA node", ""},
		{"restricted", fakeNUMA(t, two, "0-7", devs, cpus(0, 1)), local(NUMAAuto, -1), "mlx5_0", -1, "", "not placed: this process's CPU affinity is already restricted (CPUs 0-1 of 0-7)", ""},
		{"--cpu", fakeNUMA(t, two, "0-7", devs, all), local(NUMAAuto, 2), "mlx5_0", -1, "", "not placed: --cpu 2 pins the threads", ""},
		{"off", fakeNUMA(t, two, "0-7", devs, all), local(NUMAOff, -1), "mlx5_0", -1, "", "off (--numa-node off)", ""},
		{"TCP", fakeNUMA(t, two, "0-7", devs, all), local(NUMAAuto, -1), "", -1, "", "not placed: no RDMA device to follow (TCP)", ""},
		{"explicit", fakeNUMA(t, two, "0-7", devs, all), local(0, -1), "mlx5_0", 0, "0-3", "--numa-node 0", ""},
		{"explicit over a restricted affinity", fakeNUMA(t, two, "0-7", devs, []int{2, 3, 4}), local(1, -1), "mlx5_0", 1, "4", "--numa-node 1", ""},
		{"explicit, TCP", fakeNUMA(t, two, "0-7", devs, all), local(1, -1), "", 1, "4-7", "--numa-node 1", ""},
		{"explicit and --cpu", fakeNUMA(t, two, "0-7", devs, all), local(1, 0), "mlx5_0", -1, "", "", "--cpu 0 and --numa-node 1 cannot go together"},
		{"no such node", fakeNUMA(t, two, "0-7", devs, all), local(3, -1), "mlx5_0", -1, "", "", "--numa-node 3: no such node: the online nodes are 0-1"},
		{"none of its CPUs", fakeNUMA(t, two, "0-7", devs, cpus(0, 2)), local(1, -1), "mlx5_0", -1, "", "", "--numa-node 1: none of its CPUs (4-7) is among those this process may use (0-2)"},
		// The VM: one node, the device's node 0 or -1: nothing placed.
		{"one node", fakeNUMA(t, map[int]string{0: "0-1"}, "0-1", map[string]string{"rxe0": "0"}, cpus(0, 1)), local(NUMAAuto, -1), "rxe0", -1, "", "not placed: one NUMA node (rxe0's is 0)", ""},
		{"one node, -1", fakeNUMA(t, map[int]string{0: "0-1"}, "0-1", map[string]string{"rxe0": "-1"}, cpus(0, 1)), local(NUMAAuto, -1), "rxe0", -1, "", "not placed: the kernel gives rxe0 no NUMA node", ""},
	}
	for _, c := range cases {
		p, err := c.sys.place(c.l, c.dev)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || p.Node != c.node || FormatCPUList(p.CPUs) != c.cpus || !strings.HasPrefix(p.Why, c.why) {
			t.Errorf("%s: node %d cpus %q why %q, %v; want node %d cpus %q why %q", c.name, p.Node, FormatCPUList(p.CPUs), p.Why, err, c.node, c.cpus, c.why)
		}
		if p.Placed() != (c.node >= 0) {
			t.Errorf("%s: placed %t", c.name, p.Placed())
		}
		if d := p.Doc(); d.Node != c.node || d.CPUs != c.cpus || d.Why != p.Why {
			t.Errorf("%s: document %+v", c.name, d)
		}
	}
}

func TestCPUList(t *testing.T) {
	for s, want := range map[string][]int{"": nil, "0": {0}, "0-3": {0, 1, 2, 3}, "0-1,4,6-7": {0, 1, 4, 6, 7}} {
		got, err := ParseCPUList(s)
		if err != nil || !slices.Equal(got, want) || FormatCPUList(got) != s {
			t.Errorf("%q: %v %v, formatted %q", s, got, err, FormatCPUList(got))
		}
	}
	for _, bad := range []string{"x", "3-1", "-1", "1,", "0-"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for v, want := range map[string]int{"auto": NUMAAuto, "OFF": NUMAOff, "0": 0, "3": 3} {
		if got, err := ParseNUMA(v); err != nil || got != want || (got >= 0 && NUMAString(got) != v) {
			t.Errorf("--numa-node %s: %d, %v", v, got, err)
		}
	}
	for _, bad := range []string{"", "-1", "x", "1.5", "99999"} {
		if _, err := ParseNUMA(bad); err == nil || !strings.Contains(err.Error(), "want auto, off or a node number") {
			t.Errorf("--numa-node %q: %v", bad, err)
		}
	}
}

// The link rate and the NUMA node a device's description takes from
// sysfs; an unreadable or odd rate leaves it unknown.
func TestDescribeSysfs(t *testing.T) {
	sys := fakeNUMA(t, map[int]string{0: "0-1"}, "0-1", map[string]string{"rxe0": "", "mlx5_0": "1"}, cpus(0, 1))
	d := &report.Device{Name: "rxe0", Port: 1}
	sys.describeSysfs(d)
	if d.LinkRateGbps != 10 || d.LinkRate != "10 Gb/sec (1X QDR)" || d.NUMANode == nil || *d.NUMANode != -1 {
		t.Errorf("rxe0: rate %v %q node %v", d.LinkRateGbps, d.LinkRate, d.NUMANode)
	}
	d = &report.Device{Name: "mlx5_0", Port: 1}
	sys.describeSysfs(d)
	if d.LinkRateGbps != 0 || d.LinkRate != "" || *d.NUMANode != 1 {
		t.Errorf("mlx5_0 without a rate: rate %v %q node %d", d.LinkRateGbps, d.LinkRate, *d.NUMANode)
	}
	for text, want := range map[string]float64{"100 Gb/sec (4X EDR)": 100, "2.5 Gb/sec (1X SDR)": 2.5, "400 Gb/sec (4X NDR)": 400, "0 Gb/sec": 0, "fast": 0, "10 Mb/sec": 0} {
		if err := os.WriteFile(filepath.Join(sys.root, "class/infiniband/rxe0/ports/1/rate"), []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := sys.linkRate("rxe0", 1)
		if got != want || (err == nil) != (want > 0) {
			t.Errorf("rate %q: %v, %v", text, got, err)
		}
	}
}

// A buffer bound to node 0 (every machine has it) takes the policy and
// keeps it once touched; a node that does not exist is an error naming
// it.
func TestBindBuffer(t *testing.T) {
	{
		buf, err := verbs.NewBuffer(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { buf.Close() })
		if err := bindBuffer(buf, 1<<20, 0, false); err != nil {
			t.Fatal(err)
		}
		mem := buf.Bytes()
		mem[0], mem[len(mem)-1] = 1, 1
		var mode int32
		var mask [16]uint64
		// get_mempolicy(&mode, mask, maxnode, addr, MPOL_F_ADDR)
		_, _, errno := unix.Syscall6(unix.SYS_GET_MEMPOLICY, uintptr(unsafe.Pointer(&mode)), uintptr(unsafe.Pointer(&mask[0])),
			uintptr(len(mask)*64), uintptr(unsafe.Pointer(&mem[len(mem)-1])), unix.MPOL_F_ADDR, 0)
		if errno != 0 || mode != unix.MPOL_BIND || mask[0] != 1 {
			t.Errorf("policy of the bound buffer: mode %d mask %#x, %v; want MPOL_BIND on node 0", mode, mask[0], errno)
		}
	}
	buf, err := verbs.NewBuffer(4096)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { buf.Close() })
	if err := bindBuffer(buf, 4096, 1000, false); err == nil || !strings.Contains(err.Error(), "placing 4096 bytes of buffers on NUMA node 1000 (mbind)") {
		t.Errorf("node 1000: %v", err)
	}
}
