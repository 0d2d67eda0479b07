package workloads

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// NUMA placement, as upstream perftest does it since 26.04: the measuring
// threads and the registered buffers go to the RDMA device's NUMA node
// (sysfs), unless the process's affinity is already restricted (taskset,
// numactl, a launcher's binding) or --cpu pins the threads; --numa-node
// N chooses the node, --numa-node off turns it off. docs/usage.md,
// "NUMA placement".

// The values of Local.NUMA besides a node number.
const (
	NUMAAuto = -1 // the device's node, where that places anything
	NUMAOff  = -2 // no placement
)

// ParseNUMA reads --numa-node: auto, off or a node number.
func ParseNUMA(v string) (int, error) {
	switch strings.ToLower(v) {
	case "auto":
		return NUMAAuto, nil
	case "off":
		return NUMAOff, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1023 {
		return 0, fmt.Errorf("want auto, off or a node number (0, 1, ...)")
	}
	return n, nil
}

// NUMAString is --numa-node's text for a value of Local.NUMA.
func NUMAString(n int) string {
	switch n {
	case NUMAAuto:
		return "auto"
	case NUMAOff:
		return "off"
	}
	return strconv.Itoa(n)
}

// Placement is where one side's measuring threads and registered buffers
// go.
type Placement struct {
	// Node is the NUMA node they are placed on; -1: not placed.
	Node int
	// CPUs are the node's CPUs this process may use: every measuring
	// thread's affinity (unless --cpu or a loopback run pins each to one
	// of them); nil when not placed.
	CPUs []int
	// DeviceNode is the device's node as sysfs gives it, -1 when the
	// kernel does not know it or there is no device.
	DeviceNode int
	// Why says why the side is placed there, or not at all.
	Why string
}

// Placed says whether threads and buffers go to a node.
func (p *Placement) Placed() bool { return p != nil && p.Node >= 0 && len(p.CPUs) > 0 }

// placedCPUs are the CPUs l's placement keeps the measuring threads on;
// nil when not placed.
func (l Local) placedCPUs() []int {
	if !l.Placement.Placed() {
		return nil
	}
	return l.Placement.CPUs
}

// Doc is the placement as the document holds it; nil for none.
func (p *Placement) Doc() *report.Placement {
	if p == nil {
		return nil
	}
	d := &report.Placement{Node: -1, Why: p.Why}
	if p.Placed() {
		d.Node, d.CPUs = p.Node, FormatCPUList(p.CPUs)
	}
	return d
}

// sysTree is where placement and the link rate read the machine: the
// sysfs root and this process's allowed CPUs (a fake tree and set in
// tests).
type sysTree struct {
	root    string
	allowed func() ([]int, error)
}

var hostSys = sysTree{root: "/sys", allowed: allowedCPUs}

// Place decides where the side of local on device (its name; "" for a
// TCP-only side) places its measuring threads and buffers. An explicit
// --numa-node that cannot be honoured is an error naming why; auto never
// fails, it says why it placed nothing.
func Place(local Local, device string) (Placement, error) { return hostSys.place(local, device) }

func (n sysTree) place(l Local, device string) (Placement, error) {
	p := Placement{Node: -1, DeviceNode: -1}
	if device != "" {
		p.DeviceNode = n.deviceNode(device)
	}
	online, err := n.onlineNodes()
	if err != nil {
		online = nil // a kernel without NUMA: one node, nothing to place
	}
	switch {
	case l.NUMA == NUMAOff:
		p.Why = "off (--numa-node off)"
		return p, nil
	case l.NUMA >= 0 && l.CPU >= 0:
		return p, fmt.Errorf("--cpu %d and --numa-node %d cannot go together: --cpu pins the threads to CPUs you chose, --numa-node places threads and memory on a node; give one", l.CPU, l.NUMA)
	case l.NUMA >= 0:
		if !slices.Contains(online, l.NUMA) {
			return p, fmt.Errorf("--numa-node %d: no such node: the online nodes are %s", l.NUMA, orNone(FormatCPUList(online)))
		}
		return n.onNode(p, l.NUMA, fmt.Sprintf("--numa-node %d", l.NUMA), true)
	case l.CPU >= 0:
		p.Why = fmt.Sprintf("not placed: --cpu %d pins the threads", l.CPU)
	case device == "":
		p.Why = "not placed: no RDMA device to follow (TCP)"
	case p.DeviceNode < 0:
		p.Why = "not placed: the kernel gives " + device + " no NUMA node (numa_node -1 or none in sysfs)"
	case len(online) < 2:
		p.Why = fmt.Sprintf("not placed: one NUMA node (%s's is %d)", device, p.DeviceNode)
	default:
		return n.onNode(p, p.DeviceNode, device+"'s NUMA node, from sysfs", false)
	}
	return p, nil
}

// onNode places p on node, unless (auto) the process's affinity is
// already restricted; explicit says --numa-node chose it, whose CPUs
// must then include one this process may use.
func (n sysTree) onNode(p Placement, node int, why string, explicit bool) (Placement, error) {
	allowed, err := n.allowed()
	if err != nil {
		return p, fmt.Errorf("placing on NUMA node %d: reading the allowed cpus: %w", node, err)
	}
	if !explicit {
		if online, err := n.cpuList("devices/system/cpu/online"); err == nil && len(allowed) < len(online) {
			p.Why = fmt.Sprintf("not placed: this process's CPU affinity is already restricted (CPUs %s of %s): left as it is",
				FormatCPUList(allowed), FormatCPUList(online))
			return p, nil
		}
	}
	cpus, err := n.cpuList(fmt.Sprintf("devices/system/node/node%d/cpulist", node))
	if err != nil {
		return p, fmt.Errorf("placing on NUMA node %d: %w", node, err)
	}
	var use []int
	for _, c := range cpus {
		if slices.Contains(allowed, c) {
			use = append(use, c)
		}
	}
	if len(use) == 0 {
		if explicit {
			return p, fmt.Errorf("--numa-node %d: none of its CPUs (%s) is among those this process may use (%s)",
				node, orNone(FormatCPUList(cpus)), FormatCPUList(allowed))
		}
		p.Why = fmt.Sprintf("not placed: none of node %d's CPUs is among those this process may use", node)
		return p, nil
	}
	p.Node, p.CPUs, p.Why = node, use, why
	return p, nil
}

// deviceNode reads the device's NUMA node; -1 when the kernel has none
// (a software device such as rxe has no device/numa_node).
func (n sysTree) deviceNode(device string) int {
	b, err := os.ReadFile(filepath.Join(n.root, "class/infiniband", device, "device/numa_node"))
	if err != nil {
		return -1
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || v < 0 {
		return -1
	}
	return v
}

func (n sysTree) onlineNodes() ([]int, error) { return n.cpuList("devices/system/node/online") }

// cpuList reads a sysfs list ("0-3,8-11") under the root.
func (n sysTree) cpuList(rel string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(n.root, rel))
	if err != nil {
		return nil, err
	}
	l, err := ParseCPUList(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(n.root, rel), err)
	}
	return l, nil
}

// allowedCPUs are the CPUs this process may run on.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var out []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// ParseCPUList reads the kernel's list format: "0-3,8,10-11"; "" is none.
func ParseCPUList(s string) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b > 1<<16 {
			return nil, errors.New("malformed list " + strconv.Quote(s))
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// FormatCPUList writes cpus (ascending) in the kernel's list format.
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// bindBuffer places the pages of buf, mapped bytes from its start (not
// yet touched), on node: bound (MPOL_BIND, as perftest's
// numa_set_membind), or, for huge pages, preferred, since a huge page
// fault has no fall-back and a node without free ones would kill the
// process (SIGBUS) where a preference takes another node's.
func bindBuffer(buf *verbs.Buffer, mapped int, node int, huge bool) error {
	var mask [16]uint64 // 1024 nodes: ParseNUMA's bound
	if node < 0 || node >= len(mask)*64 {
		return fmt.Errorf("numa node %d: out of range", node)
	}
	mask[node/64] |= 1 << (node % 64)
	mode := uintptr(unix.MPOL_BIND)
	if huge {
		mode = unix.MPOL_PREFERRED
	}
	mem := buf.Bytes()
	_, _, errno := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&mem[0])), uintptr(mapped), mode,
		uintptr(unsafe.Pointer(&mask[0])), uintptr(len(mask)*64+1), 0)
	runtime.KeepAlive(buf)
	if errno != 0 {
		return fmt.Errorf("placing %d bytes of buffers on NUMA node %d (mbind): %w", mapped, node, errno)
	}
	return nil
}
