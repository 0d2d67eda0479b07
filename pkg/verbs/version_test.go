package verbs

import "testing"

func TestRDMACoreFromLibrary(t *testing.T) {
	for name, want := range map[string]string{"libibverbs.so.1.14.44.0": "44.0", "libibverbs.so.1.14.50.1": "50.1",
		"libibverbs.so.1": "", "libmlx5.so.1.24.44.0": "", "libibverbs.so.1.x": ""} {
		got, ok := rdmaCoreFromLibrary(name)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %t, want %q", name, got, ok, want)
		}
	}
	// This test binary links libibverbs: its version is found.
	if v := RDMACoreVersion(); v == "" {
		t.Error("no rdma-core version in this process's mappings")
	}
}
