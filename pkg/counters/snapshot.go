package counters

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultRoot is where the kernel lists RDMA devices.
const DefaultRoot = "/sys/class/infiniband"

// Source says where a counter was read.
type Source string

// The sources a Snapshot reads. Each is read whole, whatever counter names
// the driver and kernel give it.
const (
	// SourcePort is ports/<port>/counters/: the InfiniBand PMA
	// (PerfMgt) counters, present only for drivers that answer MADs
	// (mlx4, mlx5, ...; not rxe).
	SourcePort Source = "counters"
	// SourcePortHW is ports/<port>/hw_counters/: the driver's own counters.
	SourcePortHW Source = "hw_counters"
	// SourceDeviceHW is <device>/hw_counters/: device-wide driver
	// counters, where the driver has them (not rxe).
	SourceDeviceHW Source = "device_hw_counters"
	// SourceNetlink is the RDMA netlink statistic of the port
	// (RDMA_NLDEV_CMD_STAT_GET, as `rdma statistic show link DEV/PORT`):
	// the same hardware counters as SourcePortHW, read fresh, while sysfs
	// hw_counters are cached for hw_counters/lifespan milliseconds.
	SourceNetlink Source = "netlink"
	// SourceNetdev is /sys/class/net/<netdev>/statistics/ of the port's
	// network device (RoCE). It counts all traffic of the interface, and
	// rxe traffic between QPs of one device never reaches it: context,
	// left out of Clean and Check.
	SourceNetdev Source = "netdev"
)

// Counter is one counter value as read.
type Counter struct {
	Source Source `json:"source"`
	Name   string `json:"name"`
	Value  uint64 `json:"value"`
}

// Reason says why a source or counter could not be read.
type Reason string

// The reasons a source or counter is unavailable.
const (
	ReasonMissing     Reason = "missing"     // directory, file or device does not exist
	ReasonPermission  Reason = "permission"  // reading it was refused
	ReasonUnsupported Reason = "unsupported" // the kernel or driver does not offer it
	ReasonUnreadable  Reason = "unreadable"  // reading failed otherwise
	ReasonMalformed   Reason = "malformed"   // the content is not a counter value
)

// Unavailable records a source or counter that could not be read, and why.
type Unavailable struct {
	Source Source `json:"source"`
	Name   string `json:"name,omitempty"` // the counter; empty: the whole source
	Reason Reason `json:"reason"`
	Detail string `json:"detail"`
}

// String says what was unavailable and why.
func (u Unavailable) String() string {
	what := string(u.Source)
	if u.Name != "" {
		what += "/" + u.Name
	}
	return fmt.Sprintf("%s %s: %s", what, u.Reason, u.Detail)
}

// Snapshot is every counter of one RDMA port at one moment, and what could
// not be read.
type Snapshot struct {
	Device  string    `json:"device"`
	Port    int       `json:"port"`
	Netdev  string    `json:"netdev,omitempty"`
	TakenAt time.Time `json:"taken_at"`
	// Counters are sorted by source, then name.
	Counters []Counter `json:"counters"`
	// LifespanMS is each sysfs hw_counters group's lifespan setting: the
	// kernel answers reads from a cache refreshed at most this often.
	LifespanMS  map[Source]int `json:"hw_counters_lifespan_ms,omitempty"`
	Unavailable []Unavailable  `json:"unavailable,omitempty"`
}

// Usable reports whether the snapshot holds any RDMA counter (any source
// but the netdev).
func (s Snapshot) Usable() bool {
	for _, c := range s.Counters {
		if c.Source != SourceNetdev {
			return true
		}
	}
	return false
}

// NetlinkFunc returns the RDMA netlink statistic of a device's port.
type NetlinkFunc func(device string, port int) (map[string]uint64, error)

// Reader takes snapshots from a sysfs tree. Its zero value reads nothing:
// use NewReader, or set the fields (tests give fake trees).
type Reader struct {
	// Class is the tree of /sys/class/infiniband.
	Class fs.FS
	// Net is the tree of /sys/class/net; nil: no netdev source.
	Net fs.FS
	// Netlink queries the RDMA netlink statistic; nil: recorded as
	// unsupported.
	Netlink NetlinkFunc
	// Root and NetRoot name Class and Net in messages.
	Root, NetRoot string
	// Now stamps snapshots; nil: time.Now.
	Now func() time.Time
}

// NewReader reads the sysfs tree at root (normally DefaultRoot), the
// network devices in the class/net directory next to it, and RDMA netlink.
func NewReader(root string) Reader {
	return Reader{
		Class:   os.DirFS(root),
		Net:     os.DirFS(filepath.Join(filepath.Dir(root), "net")),
		Netlink: QueryNetlink,
		Root:    root,
		NetRoot: filepath.Join(filepath.Dir(root), "net"),
	}
}

// Take snapshots every counter of an RDMA port: see Reader.Take.
func Take(root, device string, port int) (Snapshot, error) {
	return NewReader(root).Take(device, port)
}

// Take snapshots every counter of the device's port: all files of
// ports/<port>/counters/, ports/<port>/hw_counters/ and <device>/hw_counters/,
// the RDMA netlink statistic and the port's netdev statistics. What cannot
// be read is recorded in Snapshot.Unavailable, never fatal; only a bad
// device name or port, or a device or port that does not exist, is an error.
// It is a [Reader.Watch] read once.
func (r Reader) Take(device string, port int) (Snapshot, error) {
	w, err := r.Watch(device, port)
	if err != nil {
		return Snapshot{}, err
	}
	defer w.Close()
	return w.Take(), nil
}

// Watch finds the counters of the device's port, as Take reads them, and
// opens their files, so that each [Watch.Take] only reads them: a run's
// two snapshots then cost a read a file each, and the listing and opening
// (most of a snapshot's time under emulation: each is a few system calls)
// can be done before the measured part begins. The errors are Take's.
func (r Reader) Watch(device string, port int) (*Watch, error) {
	if device == "" || device == "." || device == ".." || strings.ContainsAny(device, "/\x00") {
		return nil, fmt.Errorf("rdma device name %q: want a name such as rxe0 or mlx5_0", device)
	}
	if port < 0 {
		return nil, fmt.Errorf("port %d: want a port number such as 1", port)
	}
	if r.Class == nil {
		return nil, errors.New("counters reader has no sysfs tree: use NewReader")
	}
	portDir := path.Join(device, "ports", strconv.Itoa(port))
	if _, err := fs.Stat(r.Class, device); err != nil {
		return nil, fmt.Errorf("rdma device %q under %s: %w%s", device, r.root(), err, r.choices("."))
	}
	if _, err := fs.Stat(r.Class, portDir); err != nil {
		return nil, fmt.Errorf("rdma device %q port %d under %s: %w%s", device, port, r.root(), err,
			r.choices(path.Join(device, "ports")))
	}
	w := &Watch{r: r, device: device, port: port}
	w.list(r.Class, r.Root, SourcePort, path.Join(portDir, "counters"))
	w.list(r.Class, r.Root, SourcePortHW, path.Join(portDir, "hw_counters"))
	w.list(r.Class, r.Root, SourceDeviceHW, path.Join(device, "hw_counters"))
	w.items = append(w.items, watchItem{netlink: true})
	w.listNetdev(portDir)
	return w, nil
}

// choices lists the entries of dir for an error message: "; want one of
// rxe0, rxe1", or nothing when there are none.
func (r Reader) choices(dir string) string {
	entries, err := fs.ReadDir(r.Class, dir)
	if err != nil || len(entries) == 0 {
		return ""
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return "; want one of " + strings.Join(names, ", ")
}

func (r Reader) root() string {
	if r.Root == "" {
		return "the sysfs tree"
	}
	return r.Root
}

// sourceRank orders sources in snapshots and deltas.
func sourceRank(s Source) int {
	switch s {
	case SourceNetlink:
		return 0
	case SourcePortHW:
		return 1
	case SourcePort:
		return 2
	case SourceDeviceHW:
		return 3
	case SourceNetdev:
		return 4
	}
	return 5
}
