package verbs

import (
	"os"
	"path/filepath"
	"strings"
)

// RDMACoreVersion is the version of rdma-core whose libibverbs this
// process loaded, such as "44.0" (from libibverbs.so.1.14.44.0); "" when
// it cannot tell.
func RDMACoreVersion() string {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		if v, ok := rdmaCoreFromLibrary(filepath.Base(f[len(f)-1])); ok {
			return v
		}
	}
	return ""
}

// rdmaCoreFromLibrary reads rdma-core's version from libibverbs' file
// name: libibverbs.so.1.ABI.MAJOR.MINOR.
func rdmaCoreFromLibrary(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "libibverbs.so.")
	if !ok {
		return "", false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 4 {
		return "", false
	}
	return parts[2] + "." + parts[3], true
}

// DeviceDriver is the kernel driver of RDMA device name, as sysfs shows
// it ("mlx5_core"); soft devices, which have no parent device, are named
// after their driver ("rdma_rxe" for rxe, "siw"). "" when unknown.
func DeviceDriver(name string) string {
	dir := filepath.Join(SysfsRoot, name)
	if link, err := os.Readlink(filepath.Join(dir, "device", "driver")); err == nil {
		return filepath.Base(link)
	}
	if _, err := os.Stat(filepath.Join(dir, "parent")); err == nil {
		switch {
		case strings.HasPrefix(name, "rxe"):
			return "rdma_rxe"
		case strings.HasPrefix(name, "siw"):
			return "siw"
		}
	}
	return ""
}
