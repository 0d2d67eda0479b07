package engine

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestFileMapping(t *testing.T) {
	cases := []struct {
		line       string
		start, end uintptr
		ok         bool
	}{
		{"55d0c8a00000-55d0c8c1f000 r-xp 00200000 00:2a 1234 /work/main/rdma-bench", 0x55d0c8a00000, 0x55d0c8c1f000, true},
		{"7f1c2a000000-7f1c2a022000 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f1c2a000000, 0x7f1c2a022000, true},
		{"7f1c2a000000-7f1c2a001000 rw-s 00000000 00:05 7 /dev/infiniband/uverbs0", 0, 0, false},
		{"7f1c2a000000-7f1c2a001000 ---p 00000000 08:01 99 /usr/lib/libx.so", 0, 0, false},
		{"7ffd1b9e0000-7ffd1b9e2000 r-xp 00000000 00:00 0 [vdso]", 0, 0, false},
		{"c000000000-c000400000 rw-p 00000000 00:00 0", 0, 0, false},
		{"zz-10 r--p 00000000 08:01 99 /usr/lib/libx.so", 0, 0, false},
		{"2000-1000 r--p 00000000 08:01 99 /usr/lib/libx.so", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, c := range cases {
		s, e, ok := fileMapping(c.line)
		if s != c.start || e != c.end || ok != c.ok {
			t.Errorf("fileMapping(%q) = %#x, %#x, %v; want %#x, %#x, %v", c.line, s, e, ok, c.start, c.end, c.ok)
		}
	}
}

// After PrefaultMappings every page of the test binary's own mappings is
// resident in this process (smaps Rss equals Size), where the kernel has
// MADV_POPULATE_READ.
func TestPrefaultMappingsMapsProgram(t *testing.T) {
	if err := madvise(0, 0, unix.MADV_POPULATE_READ); err == unix.EINVAL {
		t.Skip("kernel lacks MADV_POPULATE_READ (Linux 5.14+): PrefaultMappings falls back to MADV_WILLNEED")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	PrefaultMappings()
	size, rss := programFootprint(t, exe)
	if size == 0 || rss != size {
		t.Fatalf("%s: %d kB resident of %d kB mapped after PrefaultMappings", exe, rss, size)
	}
}

// programFootprint sums the Size and Rss lines of smaps over path's
// mappings.
func programFootprint(t *testing.T, path string) (size, rss int) {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"): // a mapping's header line
			in = len(f) >= 6 && f[5] == path
		case in && len(f) == 3 && (f[0] == "Size:" || f[0] == "Rss:"):
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			if f[0] == "Size:" {
				size += n
			} else {
				rss += n
			}
		}
	}
	return size, rss
}
