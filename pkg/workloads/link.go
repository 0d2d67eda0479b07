package workloads

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// linkRate reads a port's rate from sysfs (ports/N/rate, such as "100
// Gb/sec (4X EDR)" or "10 Gb/sec (1X QDR)" for soft-RoCE): in 10^9 bit/s,
// and its text.
func (t sysTree) linkRate(device string, port int) (float64, string, error) {
	path := filepath.Join(t.root, "class/infiniband", device, "ports", strconv.Itoa(port), "rate")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, "", err
	}
	text := strings.TrimSpace(string(b))
	num, unit, _ := strings.Cut(text, " ")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || !strings.HasPrefix(unit, "Gb/sec") {
		return 0, text, fmt.Errorf("%s: %q: want a rate such as \"100 Gb/sec (4X EDR)\"", path, text)
	}
	return v, text, nil
}

// describeSysfs adds to d what sysfs says of its device and port: the link
// rate and the device's NUMA node.
func (t sysTree) describeSysfs(d *report.Device) {
	if gbps, text, err := t.linkRate(d.Name, d.Port); err == nil {
		d.LinkRateGbps, d.LinkRate = gbps, text
	}
	node := t.deviceNode(d.Name)
	d.NUMANode = &node
}
