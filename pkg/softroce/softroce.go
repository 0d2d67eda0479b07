// Package softroce creates, deletes and lists soft-RoCE (rdma_rxe) RDMA
// devices, so that RDMA code can run on an ordinary Ethernet or loopback
// interface without RDMA hardware.
//
// It talks to the kernel over RDMA netlink, like the rdma(8) tool of
// iproute2, and reads device details from /sys/class/infiniband. Kernels
// without the rdma_rxe module (such as many VM and container kernels) cannot
// do this at all; vm/run.sh in this repository (used by `make test`) runs
// commands inside a QEMU VM with Debian's kernel, which has it.
package softroce

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/vishvananda/netlink"
)

// DefaultName is the device name Up and Down use when given none.
const DefaultName = "rxe0"

// TypeRXE is Link.Type for soft-RoCE devices.
const TypeRXE = "rxe"

// ErrNoModule reports a kernel without the rdma_rxe module.
var ErrNoModule = errors.New("kernel has no rdma_rxe module")

// Link is one RDMA device as Status reports it.
type Link struct {
	Name   string // RDMA device name, e.g. "rxe0"
	Type   string // TypeRXE for soft-RoCE, "" for other (hardware) devices
	Netdev string // network interface it is bound to, "" if unknown
	State  string // port 1 state, e.g. "ACTIVE" or "DOWN", "" if unknown
}

// sysfsRoot is where /sys is; tests point it at a fake tree.
var sysfsRoot = "/sys"

// Up loads rdma_rxe if needed and creates the soft-RoCE device name bound to
// the network interface netdev. An empty name means DefaultName; an empty
// netdev means the first interface that is up, not loopback and has an IPv4
// address, else "lo".
//
// Equivalent to: `modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0`.
func Up(name, netdev string) (Link, error) {
	if name == "" {
		name = DefaultName
	}
	if err := loadModule(); err != nil {
		return Link{}, err
	}
	ifaces, err := interfaces()
	if err != nil {
		return Link{}, err
	}
	if netdev == "" {
		netdev = chooseNetdev(ifaces)
	} else if !slices.ContainsFunc(ifaces, func(i iface) bool { return i.name == netdev }) {
		return Link{}, unknownNetdevError(netdev, ifaces)
	}
	links, err := Status()
	if err != nil {
		return Link{}, err
	}
	if err := checkFree(name, netdev, links); err != nil {
		return Link{}, err
	}
	if err := netlink.RdmaLinkAdd(name, TypeRXE, netdev); err != nil {
		return Link{}, fmt.Errorf("rdma link add %s type rxe netdev %s: %w", name, netdev, err)
	}
	if err := remember(name); err != nil {
		return readLink(name), err
	}
	return readLink(name), nil
}

// Down deletes the soft-RoCE device name (DefaultName if empty).
//
// Equivalent to: `rdma link delete rxe0`.
func Down(name string) error {
	if name == "" {
		name = DefaultName
	}
	links, err := Status()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(links, func(l Link) bool { return l.Name == name })
	if i < 0 {
		return fmt.Errorf("no rdma device %q (%s)", name, describeLinks(links))
	}
	if links[i].Type != TypeRXE {
		return fmt.Errorf("rdma device %q is not a soft-RoCE (rxe) device", name)
	}
	if err := netlink.RdmaLinkDel(name); err != nil {
		return fmt.Errorf("rdma link delete %s: %w", name, err)
	}
	return forget(name)
}

// Status lists the RDMA devices, soft-RoCE or not. A kernel without RDMA
// support has none.
//
// Equivalent to: `rdma link show`.
func Status() ([]Link, error) {
	rl, err := netlink.RdmaLinkList()
	if errors.Is(err, syscall.EPROTONOSUPPORT) {
		return nil, nil // no RDMA netlink: CONFIG_INFINIBAND is off
	}
	if err != nil {
		return nil, fmt.Errorf("list rdma devices: %w", err)
	}
	links := make([]Link, 0, len(rl))
	for _, l := range rl {
		links = append(links, readLink(l.Attrs.Name))
	}
	return links, nil
}

// readLink fills a Link from /sys/class/infiniband/NAME. Only rxe devices
// have the "parent" attribute (their network interface); for others the
// interface of GID 0 is the best guess.
func readLink(name string) Link {
	dev := filepath.Join(sysfsRoot, "class", "infiniband", name)
	l := Link{Name: name}
	if parent, err := readAttr(filepath.Join(dev, "parent")); err == nil {
		l.Type, l.Netdev = TypeRXE, parent
	} else if ndev, err := readAttr(filepath.Join(dev, "ports", "1", "gid_attrs", "ndevs", "0")); err == nil {
		l.Netdev = ndev
	}
	if state, err := readAttr(filepath.Join(dev, "ports", "1", "state")); err == nil {
		l.State = parseState(state)
	}
	return l
}

func readAttr(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// parseState turns a sysfs port state such as "4: ACTIVE" into "ACTIVE".
func parseState(s string) string {
	if _, after, ok := strings.Cut(s, ":"); ok {
		return strings.TrimSpace(after)
	}
	return strings.TrimSpace(s)
}

// loadModule runs `modprobe rdma_rxe` unless the module is loaded (or built in).
func loadModule() error {
	if _, err := os.Stat(filepath.Join(sysfsRoot, "module", "rdma_rxe")); err == nil {
		return nil
	}
	out, err := exec.Command("modprobe", "rdma_rxe").CombinedOutput()
	if err == nil {
		return nil
	}
	release, _ := readAttr("/proc/sys/kernel/osrelease")
	_, statErr := os.Stat(filepath.Join("/lib/modules", release))
	_, hdrErr := os.Stat(filepath.Join("/lib/modules", release, "build", "Makefile"))
	return modprobeError(release, strings.TrimSpace(string(out)), err, statErr == nil, hdrErr == nil)
}

// modprobeError explains a failed `modprobe rdma_rxe`: a missing module (or
// no modules at all for this kernel) gets ErrNoModule, whether the
// kernel's headers are there, and the ways around it.
func modprobeError(release, out string, err error, haveModules, haveHeaders bool) error {
	if strings.Contains(out, "not found") || !haveModules {
		headers := "no headers (/lib/modules/" + release + "/build): the script installs linux-headers-" + release
		if haveHeaders {
			headers = "its headers are in /lib/modules/" + release + "/build"
		}
		return fmt.Errorf("%w (kernel %s; %s): build it from this kernel's distribution source with "+
			"sudo scripts/ci/rxe-module.sh --install --load (in rdma-bench's repository; docs/ci.md), or install linux-modules-extra-%s where Ubuntu has it; "+
			"on a kernel without RDMA at all, run inside the project's QEMU VM: vm/run.sh -- COMMAND (make test does this)",
			ErrNoModule, release, headers, release)
	}
	if out == "" {
		return fmt.Errorf("modprobe rdma_rxe: %w", err)
	}
	return fmt.Errorf("modprobe rdma_rxe: %w: %s", err, out)
}

// iface is what Up needs to know about a network interface.
type iface struct {
	name     string
	up       bool
	loopback bool
	ipv4     bool
}

func interfaces() ([]iface, error) {
	nis, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("list network interfaces: %w", err)
	}
	ifaces := make([]iface, 0, len(nis))
	for _, ni := range nis {
		i := iface{
			name:     ni.Name,
			up:       ni.Flags&net.FlagUp != 0,
			loopback: ni.Flags&net.FlagLoopback != 0,
		}
		addrs, _ := ni.Addrs() // an interface whose addresses cannot be read has none for us
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
				i.ipv4 = true
			}
		}
		ifaces = append(ifaces, i)
	}
	return ifaces, nil
}

// chooseNetdev picks the first interface that is up, not loopback and has an
// IPv4 address; else "lo".
func chooseNetdev(ifaces []iface) string {
	for _, i := range ifaces {
		if i.up && !i.loopback && i.ipv4 {
			return i.name
		}
	}
	return "lo"
}

func unknownNetdevError(netdev string, ifaces []iface) error {
	names := make([]string, len(ifaces))
	for k, i := range ifaces {
		names[k] = i.name
	}
	return fmt.Errorf("no network interface %q (interfaces: %s)", netdev, strings.Join(names, ", "))
}

// checkFree refuses a device name already in use, and a network interface
// that already has a soft-RoCE device (rxe allows one per interface).
func checkFree(name, netdev string, links []Link) error {
	for _, l := range links {
		if l.Name == name {
			if l.Netdev != "" {
				return fmt.Errorf("rdma device name %q is taken (bound to %s)", name, l.Netdev)
			}
			return fmt.Errorf("rdma device name %q is taken", name)
		}
	}
	for _, l := range links {
		if l.Type == TypeRXE && l.Netdev == netdev {
			return fmt.Errorf("network interface %s already has soft-RoCE device %q", netdev, l.Name)
		}
	}
	return nil
}

// describeLinks names the existing devices for an error message.
func describeLinks(links []Link) string {
	if len(links) == 0 {
		return "there are no rdma devices"
	}
	names := make([]string, len(links))
	for i, l := range links {
		names[i] = l.Name
	}
	return "devices: " + strings.Join(names, ", ")
}
