package verbs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// providerFile matches a libibverbs provider's file name: "librxe-rdmav34.so",
// "libmlx5-rdmav34.so" (the stem is the provider).
var providerFile = regexp.MustCompile(`^lib(.+)-rdmav\d+\.so$`)

// driverProvider names the provider of kernel drivers whose name is not
// the provider's (mlx5_core's is mlx5).
var driverProvider = map[string]string{
	"rdma_rxe": "rxe", "mlx5_core": "mlx5", "mlx4_core": "mlx4", "bnxt_en": "bnxt_re",
	"hns3": "hns", "i40e": "irdma", "ice": "irdma", "ionic": "ionic",
}

// Provider is the path of the libibverbs provider library this process
// loaded for the device called name, such as
// "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so": the one its
// kernel driver maps to, else the one its name starts with ("" when
// unknown, or before the device list was read).
func Provider(name string) string {
	driver := DeviceDriver(name)
	want := []string{driverProvider[driver], driver, strings.TrimRight(name, "0123456789_")}
	loaded.Lock()
	defer loaded.Unlock()
	for fresh := false; ; fresh = true {
		for _, w := range want {
			if p, ok := loaded.paths[w]; ok && w != "" {
				return p
			}
		}
		if fresh {
			return ""
		}
		// Not among the providers seen so far: read again, since the
		// device list may have loaded it since.
		loaded.paths = loadedProviders()
	}
}

// loaded are the providers seen loaded in this process, as last read
// (a provider stays loaded once libibverbs has loaded it): each run of a
// process that measures many names its provider without reading
// /proc/self/maps, long for a cgo program, again.
var loaded struct {
	sync.Mutex
	paths map[string]string
}

// loadedProviders maps each provider loaded into this process (by its
// stem, "rxe") to its path, from /proc/self/maps.
func loadedProviders() map[string]string {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		path := f[len(f)-1]
		if m := providerFile.FindStringSubmatch(filepath.Base(path)); m != nil {
			out[m[1]] = path
		}
	}
	return out
}

// KnownBug is what is known of a provider that drops completions, for
// the provider library at path and rdma-core version (such as "50.0");
// "" when nothing is. The source of each entry is named in docs/ci.md
// ("A broken provider").
func KnownBug(path, version string) string {
	m := providerFile.FindStringSubmatch(filepath.Base(path))
	if m == nil || m[1] != "rxe" {
		return ""
	}
	if major, _, _ := strings.Cut(version, "."); major == "50" {
		return "rdma-core 50's rxe provider (Ubuntu 24.04's) is known to drop a completion once a poll has drained the queue: " +
			"run against a newer rdma-core built in place, through LD_LIBRARY_PATH (docs/ci.md, \"A broken provider\")"
	}
	return ""
}
