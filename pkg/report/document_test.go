package report

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestParseCPUModel(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"cpuinfo_x86.txt", "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz"},
		{"cpuinfo_ppc64le.txt", "POWER9 (architected), altivec supported"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := parseCPUModel(string(data)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.file, got, tc.want)
		}
	}
	arm := "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"
	if got := parseCPUModel(arm); got != "" {
		t.Errorf("arm64 without a model line: got %q, want empty", got)
	}
	if got := parseCPUModel("Processor\t: ARMv7 Processor rev 4 (v7l)\n"); got != "ARMv7 Processor rev 4 (v7l)" {
		t.Errorf("armv7: got %q", got)
	}
}

func TestCollectHost(t *testing.T) {
	h, err := CollectHost()
	if runtime.GOOS == "linux" && err != nil {
		t.Fatal(err)
	}
	if h.Hostname == "" || h.Cores != runtime.NumCPU() {
		t.Errorf("host %+v", h)
	}
	if runtime.GOOS == "linux" && h.Kernel == "" {
		t.Errorf("no kernel release: %+v", h)
	}
}
