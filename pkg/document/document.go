// Package document owns the JSON document that rdma-bench run and suite
// save: its types, its schema version, its writer ([Encode]) and its
// reader ([Parse], [Each]). It is cgo-free, so the offline
// commands (compare, plot, report) read documents without rdma-core.
//
// The measuring side (pkg/report) converts its measurement into a
// [Document] in one function; the readers (pkg/results) analyse the
// values [Parse] returns. docs/json.md describes every key.
package document

import "time"

// SchemaVersion is the layout version written and the only one read. It
// changes when a key is renamed, removed or changes meaning; adding keys
// does not change it.
const SchemaVersion = 2

// ToolName is the tool.name of every rdma-bench document.
const ToolName = "rdma-bench"

// Kinds of document: kind says which command wrote it. Documents from
// before the kind key are runs.
const (
	KindRun    = "run"
	KindFabric = "fabric"
	KindGate   = "gate"
)

// Envelope is the head of a saved document of rdma-bench: its layout's
// version and its kind. A run's document and a fabric sweep's embed it,
// so that its keys come first; a gate's document writes the same keys in
// the other order (kind first), so it declares them itself. [CheckHead]
// reads it.
type Envelope struct {
	// SchemaVersion is the version of the layout of the document's kind.
	SchemaVersion int `json:"schema_version"`
	// Kind is [KindRun], [KindFabric] or [KindGate].
	Kind string `json:"kind"`
}

// Document is one saved invocation of rdma-bench run or suite.
type Document struct {
	// Path is the file the document was read from, escaped for printing;
	// "" for one parsed from memory or being written.
	Path string `json:"-"`
	// Envelope's SchemaVersion is the layout version and its Kind is
	// [KindRun]; Encode writes both ([SchemaVersion], [KindRun]).
	Envelope
	// Tool identifies the program that wrote the document.
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
	Results []*Result `json:"results"`
	// LoadCurves are the verdicts on the latency-against-load curves
	// (points run at several offered rates); nil when none.
	LoadCurves []*LoadCurve `json:"load_curves,omitempty"`
	// LoadedCurves are the verdicts on the loaded-latency curves (points
	// run beside several loader levels, --loaders); nil when none.
	LoadedCurves []*LoadedCurve `json:"loaded_curves,omitempty"`
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
	// Placement is where this side placed its measuring threads and
	// registered buffers (NUMA); nil in documents from before it.
	Placement *Placement `json:"placement,omitempty"`
}

// Placement is a side's NUMA placement: the node its measuring threads
// and registered buffers went to, and why (docs/usage.md, "NUMA
// placement").
type Placement struct {
	// Node is the NUMA node; -1 when nothing was placed.
	Node int `json:"node"`
	// CPUs are the node's CPUs the threads ran on, in the kernel's list
	// form ("0-7,16-23"); "" when nothing was placed.
	CPUs string `json:"cpus,omitempty"`
	// Why says why there, or why not placed ("off (--numa-node off)").
	Why string `json:"why"`
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
	// LinkRateGbps is the port's rate as sysfs gives it (ports/N/rate), in
	// 10^9 bit/s, and LinkRate its text ("100 Gb/sec (4X EDR)"); 0 and ""
	// when unknown.
	LinkRateGbps float64 `json:"link_rate_gbps,omitempty"`
	LinkRate     string  `json:"link_rate,omitempty"`
	// NUMANode is the device's NUMA node (sysfs device/numa_node); -1
	// when the kernel gives none; nil in documents from before it.
	NUMANode *int `json:"numa_node,omitempty"`
	// Chosen says why this device: "named by -d", "made by rdma-bench
	// softroce up, ...", "the only RDMA device", "the first of 2 RDMA
	// devices (mlx5_0, rxe0); -d names another"; "" in documents from
	// before it.
	Chosen string `json:"chosen,omitempty"`
	// Provider is the libibverbs provider library loaded for the device
	// ("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"); "" when
	// unknown.
	Provider string `json:"provider,omitempty"`
}

// Peer is the other side of a two-process run.
type Peer struct {
	Host   Host    `json:"host"`
	Device *Device `json:"device,omitempty"`
}

// LoadCurve is the verdict on one latency-against-load curve: a latency
// point run at several offered rates.
type LoadCurve struct {
	Workload  string `json:"workload"`
	SizeBytes int    `json:"size_bytes"`
	// RatesOPS are the offered rates, ascending; KneeOPS the first one
	// past the knee, nil when there is none.
	RatesOPS []int  `json:"rates_ops"`
	KneeOPS  *int   `json:"knee_ops"`
	Summary  string `json:"summary"`
}
