package counters

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// faultFS fails opening the named files with the given errors.
type faultFS struct {
	fs.FS
	faults map[string]error
}

func (f faultFS) Open(name string) (fs.File, error) {
	if err, ok := f.faults[name]; ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.FS.Open(name)
}

var stamp = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// rxeNetlink is what RDMA netlink returns for the fake rxe0: the same
// values as its hw_counters.
func rxeNetlink(device string, port int) (map[string]uint64, error) {
	if device != "rxe0" || port != 1 {
		return nil, fmt.Errorf("rdma netlink lists no device %q: %w", device, errNoDevice)
	}
	return map[string]uint64{
		"sent_pkts": 43042, "rcvd_pkts": 43042, "duplicate_request": 320, "out_of_seq_request": 0,
		"rcvd_rnr_err": 0, "send_rnr_err": 0, "rcvd_seq_err": 0, "ack_deferred": 0,
		"retry_exceeded_err": 0, "retry_rnr_exceeded_err": 0, "completer_retry_err": 15,
		"send_err": 0, "link_downed": 0, "rdma_sends": 800, "rdma_recvs": 800,
	}, nil
}

func rxeReader() Reader {
	return Reader{
		Class:   os.DirFS("testdata/rxe/infiniband"),
		Net:     os.DirFS("testdata/rxe/net"),
		Netlink: rxeNetlink,
		Root:    "/sys/class/infiniband",
		NetRoot: "/sys/class/net",
		Now:     func() time.Time { return stamp },
	}
}

func mlx5Reader() Reader {
	return Reader{
		Class: faultFS{os.DirFS("testdata/mlx5/infiniband"), map[string]error{
			"mlx5_0/ports/1/hw_counters/out_of_buffer": syscall.EACCES,
			"mlx5_0/ports/1/counters/symbol_error":     syscall.EINVAL,
		}},
		Net: os.DirFS("testdata/mlx5/net"),
		Netlink: func(device string, port int) (map[string]uint64, error) {
			return nil, fmt.Errorf("rdma netlink statistic of %s/%d: %w", device, port, syscall.EOPNOTSUPP)
		},
		Root:    "/sys/class/infiniband",
		NetRoot: "/sys/class/net",
		Now:     func() time.Time { return stamp },
	}
}

// golden compares v, as indented JSON, with testdata/golden/name.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", file, got)
	}
}

func counterMap(s Snapshot, src Source) map[string]uint64 {
	m := map[string]uint64{}
	for _, c := range s.Counters {
		if c.Source == src {
			m[c.Name] = c.Value
		}
	}
	return m
}

func findUnavailable(s []Unavailable, src Source, name string) (Unavailable, bool) {
	for _, u := range s {
		if u.Source == src && u.Name == name {
			return u, true
		}
	}
	return Unavailable{}, false
}

func TestTakeRXE(t *testing.T) {
	s, err := rxeReader().Take("rxe0", 1)
	if err != nil {
		t.Fatal(err)
	}
	hw := counterMap(s, SourcePortHW)
	if len(hw) != 15 || hw["sent_pkts"] != 43042 || hw["completer_retry_err"] != 15 {
		t.Errorf("hw_counters = %v, want rxe's 15 counters", hw)
	}
	if _, ok := hw["lifespan"]; ok || s.LifespanMS[SourcePortHW] != 12 {
		t.Errorf("lifespan: counters %v, setting %v; want it as the setting 12 ms, not a counter", hw, s.LifespanMS)
	}
	if nl := counterMap(s, SourceNetlink); len(nl) != 15 || nl["rdma_sends"] != 800 {
		t.Errorf("netlink counters = %v", nl)
	}
	if nd := counterMap(s, SourceNetdev); s.Netdev != "lo" || nd["tx_bytes"] != 35846 {
		t.Errorf("netdev %q counters %v, want lo's", s.Netdev, nd)
	}
	for _, src := range []Source{SourcePort, SourceDeviceHW} {
		if u, ok := findUnavailable(s.Unavailable, src, ""); !ok || u.Reason != ReasonMissing {
			t.Errorf("%s: unavailable %+v %v, want it recorded as missing", src, u, ok)
		}
	}
	if !s.Usable() {
		t.Error("Usable() = false")
	}
	golden(t, "snapshot_rxe.json", s)
}

func TestTakeMLX5(t *testing.T) {
	s, err := mlx5Reader().Take("mlx5_0", 1)
	if err != nil {
		t.Fatal(err)
	}
	pma := counterMap(s, SourcePort)
	if len(pma) != 19 || pma["port_xmit_data"] != 1234567890 {
		t.Errorf("PMA counters = %v, want 21 files less the malformed and the unreadable one", pma)
	}
	checks := []struct {
		src    Source
		name   string
		reason Reason
	}{
		{SourcePortHW, "out_of_buffer", ReasonPermission},
		{SourcePort, "symbol_error", ReasonUnreadable},
		{SourcePort, "port_xmit_wait", ReasonMalformed},
		{SourceNetlink, "", ReasonUnsupported},
		{SourceNetdev, "", ReasonMissing},
	}
	for _, c := range checks {
		if u, ok := findUnavailable(s.Unavailable, c.src, c.name); !ok || u.Reason != c.reason {
			t.Errorf("%s/%s: unavailable %+v %v, want reason %s", c.src, c.name, u, ok, c.reason)
		}
	}
	if dev := counterMap(s, SourceDeviceHW); len(dev) != 3 || s.LifespanMS[SourceDeviceHW] != 10 {
		t.Errorf("device hw_counters = %v, lifespans %v", dev, s.LifespanMS)
	}
	golden(t, "snapshot_mlx5.json", s)
}

func TestTakeErrors(t *testing.T) {
	r := rxeReader()
	for _, c := range []struct {
		device string
		port   int
		want   string
	}{
		{"", 1, "want a name such as rxe0"},
		{"../rxe0", 1, "want a name such as rxe0"},
		{"rxe0", -1, "want a port number"},
		{"rxe9", 1, `rdma device "rxe9" under /sys/class/infiniband: stat rxe9: no such file or directory; want one of rxe0`},
		{"rxe0", 2, `rdma device "rxe0" port 2 under /sys/class/infiniband: stat rxe0/ports/2: no such file or directory; want one of 1`},
	} {
		_, err := r.Take(c.device, c.port)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Take(%q, %d) error = %v, want one containing %q", c.device, c.port, err, c.want)
		}
	}
	if _, err := (Reader{}).Take("rxe0", 1); err == nil {
		t.Error("zero Reader: want an error")
	}
}

// TestTakeChmod makes a counter file unreadable for real, which only works
// for a user the kernel holds to file modes (not root).
func TestTakeChmod(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files of any mode; TestTakeMLX5 covers permission errors with a fault-injecting file system")
	}
	dir := t.TempDir()
	hw := filepath.Join(dir, "rxe0", "ports", "1", "hw_counters")
	if err := os.MkdirAll(hw, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"sent_pkts": 0o644, "rcvd_pkts": 0o000} {
		if err := os.WriteFile(filepath.Join(hw, name), []byte("7\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Reader{Class: os.DirFS(dir)}.Take("rxe0", 1)
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := findUnavailable(s.Unavailable, SourcePortHW, "rcvd_pkts"); !ok || u.Reason != ReasonPermission {
		t.Errorf("unavailable %+v %v, want rcvd_pkts refused", u, ok)
	}
	if got := counterMap(s, SourcePortHW); got["sent_pkts"] != 7 {
		t.Errorf("counters %v, want sent_pkts 7", got)
	}
}

func TestReasonOf(t *testing.T) {
	for err, want := range map[error]Reason{
		fs.ErrNotExist:                      ReasonMissing,
		syscall.ENODEV:                      ReasonMissing,
		syscall.EPERM:                       ReasonPermission,
		syscall.EPROTONOSUPPORT:             ReasonUnsupported,
		errors.ErrUnsupported:               ReasonUnsupported,
		syscall.EIO:                         ReasonUnreadable,
		fmt.Errorf("x: %w", syscall.EACCES): ReasonPermission,
	} {
		if got := reasonOf(err); got != want {
			t.Errorf("reasonOf(%v) = %s, want %s", err, got, want)
		}
	}
}

// TestTakeIBPort: an InfiniBand port's GID entries name no network device
// (reading them fails with EINVAL); that is a missing netdev, not a warning.
func TestTakeIBPort(t *testing.T) {
	r := mlx5Reader()
	r.Class = faultFS{os.DirFS("testdata/mlx5/infiniband"), map[string]error{
		"mlx5_0/ports/1/gid_attrs/ndevs/0": syscall.EINVAL,
	}}
	r.Netlink = func(string, int) (map[string]uint64, error) { return map[string]uint64{"duplicate_request": 1}, nil }
	s, err := r.Take("mlx5_0", 1)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := findUnavailable(s.Unavailable, SourceNetdev, "")
	if !ok || u.Reason != ReasonMissing || !strings.Contains(u.Detail, "invalid argument") {
		t.Errorf("netdev unavailable %+v %v, want missing, saying why", u, ok)
	}
	d, err := Diff(s, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range d.Clean().Warnings() {
		if strings.HasPrefix(w, "netdev") || strings.HasPrefix(w, "device_hw_counters") {
			t.Errorf("warning %q: a port without a netdev is normal", w)
		}
	}
	if w := d.Clean().Warnings(); len(w) != 1 || !strings.Contains(w[0], "port_xmit_wait malformed") {
		t.Errorf("Warnings() = %q, want only the malformed port_xmit_wait", w)
	}
}
