package report

import (
	"errors"
	"fmt"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"os"
	"runtime"
	"strings"
	"time"
)

// Document is everything one invocation reports: the context and every
// result of the run (every size of a sweep). The json encoder converts it
// into the saved document, whose layout pkg/document owns.
type Document struct {
	// Tool identifies the program that produced the document.
	Tool Tool
	// Host describes the machine the results were measured on.
	Host Host
	// Device describes the RDMA device used; nil for TCP-only runs.
	Device *Device
	// Label names the document's side of a comparison (--label), such as
	// a firmware version; "" for none.
	Label string
	// Repeat is how many times every point was measured (--repeat).
	Repeat int
	// StartedAt is when the run started.
	StartedAt time.Time
	// Args is the command line of the run.
	Args []string
	// Results are the measured points, in run order.
	Results []*Result
}

// Tool, Host, Device, Peer and Placement are the saved document's
// (pkg/document).
type (
	Tool      = document.Tool
	Host      = document.Host
	Device    = document.Device
	Peer      = document.Peer
	Placement = document.Placement
)

// CollectHost describes this machine. It fills what it can: on error the
// returned Host still holds every field that could be read.
func CollectHost() (Host, error) {
	h := Host{Cores: runtime.NumCPU()}
	var errs []error
	name, err := os.Hostname()
	if err != nil {
		errs = append(errs, fmt.Errorf("hostname: %w", err))
	}
	h.Hostname = name
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err != nil {
		errs = append(errs, fmt.Errorf("kernel release: %w", err))
	} else {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err != nil {
		errs = append(errs, fmt.Errorf("cpu model: %w", err))
	} else {
		h.CPUModel = parseCPUModel(string(b))
	}
	if len(errs) > 0 {
		return h, fmt.Errorf("collect host: %w", errors.Join(errs...))
	}
	return h, nil
}

// parseCPUModel returns the processor model from /proc/cpuinfo content:
// "model name" (x86), else the keys other architectures use.
func parseCPUModel(cpuinfo string) string {
	keys := []string{"model name", "cpu model", "Processor", "cpu", "Hardware", "uarch"}
	found := make(map[string]string, len(keys))
	for line := range strings.Lines(cpuinfo) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := found[k]; !seen && v != "" {
			found[k] = v
		}
	}
	for _, k := range keys {
		if v := found[k]; v != "" {
			return v
		}
	}
	return ""
}
