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
	return modprobeError(strings.TrimSpace(string(out)), err, probeKernel(release))
}

// kernelFacts is what modprobeError says about a kernel without rdma_rxe.
type kernelFacts struct {
	release     string // uname -r
	haveModules bool   // /lib/modules/RELEASE exists
	haveHeaders bool   // /lib/modules/RELEASE/build/Makefile exists
	haveIBCore  bool   // the RDMA core (ib_core) is loaded, built in or a module of the kernel
	distro      string // ID of /etc/os-release: "debian", "ubuntu", ...; "" if unknown
}

// probeKernel gathers kernelFacts from /lib/modules, sysfsRoot and
// /etc/os-release.
func probeKernel(release string) kernelFacts {
	mods := filepath.Join("/lib/modules", release)
	k := kernelFacts{release: release, distro: osReleaseID("/etc/os-release")}
	_, err := os.Stat(mods)
	k.haveModules = err == nil
	_, err = os.Stat(filepath.Join(mods, "build", "Makefile"))
	k.haveHeaders = err == nil
	_, err = os.Stat(filepath.Join(sysfsRoot, "module", "ib_core"))
	k.haveIBCore = err == nil || listsModule(filepath.Join(mods, "modules.dep"), "ib_core") ||
		listsModule(filepath.Join(mods, "modules.builtin"), "ib_core")
	return k
}

// listsModule reports whether a modules.dep or modules.builtin file names
// the module (as .../NAME.ko, compressed or not).
func listsModule(path, name string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		file, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		base := filepath.Base(file)
		if base == name+".ko" || strings.HasPrefix(base, name+".ko.") {
			return true
		}
	}
	return false
}

// osReleaseID is the ID field of an os-release file, "" if unreadable.
func osReleaseID(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ID="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// rxeScript is the repository's script that builds rdma_rxe out of tree.
const rxeScript = "scripts/ci/rxe-module.sh"

// modprobeError explains a failed `modprobe rdma_rxe`. A missing module (or
// no modules at all for this kernel) gets ErrNoModule and says what is
// missing and what to run: without the RDMA core, only a kernel that has it
// (the project's VM); else the distribution's package where there is one
// (Ubuntu's linux-modules-extra-RELEASE) and rxeScript, which builds the
// module from the kernel's own source, saying whether the headers it needs
// are there.
func modprobeError(out string, err error, k kernelFacts) error {
	if !strings.Contains(out, "not found") && k.haveModules {
		if out == "" {
			return fmt.Errorf("modprobe rdma_rxe: %w", err)
		}
		return fmt.Errorf("modprobe rdma_rxe: %w: %s", err, out)
	}
	mods := "/lib/modules/" + k.release
	vm := "run inside the project's QEMU VM, whose Debian kernel has it: vm/run.sh -- COMMAND (make test does this)"
	if !k.haveIBCore {
		return fmt.Errorf("%w (kernel %s), nor the RDMA core it needs (no ib_core loaded, built in or in %s), "+
			"so building rdma_rxe (%s) cannot help: use a kernel with RDMA, or %s",
			ErrNoModule, k.release, mods, rxeScript, vm)
	}
	headers := "no headers in " + mods + "/build: the script installs linux-headers-" + k.release
	if k.haveHeaders {
		headers = "its headers are in " + mods + "/build"
	}
	var fix string
	switch k.distro {
	case "ubuntu":
		fix = "install linux-modules-extra-" + k.release + ", which has it for some Ubuntu kernels (apt-get install linux-modules-extra-" + k.release + "), or build it"
	case "debian":
		fix = "build it"
	default:
		fix = "build it (the script knows Debian and Ubuntu; elsewhere give it your kernel's drivers/infiniband/sw/rxe with --source DIR)"
	}
	return fmt.Errorf("%w (kernel %s; %s): %s from the kernel's own distribution source and headers: "+
		"sudo %s --install --load (in rdma-bench's repository; docs/ci.md); or %s",
		ErrNoModule, k.release, headers, fix, rxeScript, vm)
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
