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

func TestProviderFile(t *testing.T) {
	for name, want := range map[string]string{"librxe-rdmav34.so": "rxe", "libbnxt_re-rdmav34.so": "bnxt_re",
		"libibverbs.so.1.14.44.0": "", "librxe-rdmav34.so.1": "", "libmlx5.so.1.24.44.0": ""} {
		got := ""
		if m := providerFile.FindStringSubmatch(name); m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
