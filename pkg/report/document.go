package report

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// SchemaVersion is the version of the JSON document layout written by the
// json encoder. It changes when a key is renamed, removed or changes
// meaning; adding keys does not change it.
const SchemaVersion = 2

// DocumentKind is the kind of the documents run and suite save; fabric
// and gate documents name their own.
const DocumentKind = "run"

// Document is everything one invocation reports: the context and every
// result of the run (every size of a sweep).
type Document struct {
	// SchemaVersion is the layout version; encoders always write the
	// package's [SchemaVersion].
	SchemaVersion int `json:"schema_version"`
	// Tool identifies the program that produced the document.
	Tool Tool `json:"tool"`
	// Host describes the machine the results were measured on.
	Host Host `json:"host"`
	// Device describes the RDMA device used; nil for TCP-only runs.
	Device *Device `json:"device,omitempty"`
	// Label names the document's side of a comparison (--label), such as
	// a firmware version; "" for none.
	Label string `json:"label,omitempty"`
	// Repeat is how many times every point was measured (--repeat).
	Repeat int `json:"repeat"`
	// StartedAt is when the run started.
	StartedAt time.Time `json:"started_at"`
	// Args is the command line of the run.
	Args []string `json:"args"`
	// Results are the measured points, in run order.
	Results []*Result `json:"-"`
}

// Tool identifies the benchmark program.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// Host describes a machine.
type Host struct {
	Hostname string `json:"hostname"`
	// Kernel is the kernel release (uname -r).
	Kernel string `json:"kernel"`
	// CPUModel is the processor model name from /proc/cpuinfo.
	CPUModel string `json:"cpu_model"`
	// Cores is the number of CPUs usable by the process.
	Cores int `json:"cores"`
	// RDMACore is rdma-core's version, from the libibverbs loaded ("" when
	// unknown).
	RDMACore string `json:"rdma_core"`
}

// Device describes the RDMA device and port of a run.
type Device struct {
	Name            string `json:"name"`
	FirmwareVersion string `json:"firmware_version"`
	// Driver is the kernel driver, e.g. "mlx5_core" or "rdma_rxe" ("" when
	// unknown).
	Driver string `json:"driver"`
	Port   int    `json:"port"`
	// LinkLayer is "InfiniBand" or "Ethernet".
	LinkLayer string `json:"link_layer"`
	// MTU is the active path MTU in bytes.
	MTU int `json:"mtu"`
	// GIDType is e.g. "IB/RoCE v1" or "RoCE v2".
	GIDType  string `json:"gid_type"`
	GIDIndex int    `json:"gid_index"`
	// GID is the address used, in IPv6 form ("::ffff:10.0.0.1" for RoCE
	// v2 over IPv4).
	GID string `json:"gid,omitempty"`
}

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
