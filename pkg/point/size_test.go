package point

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int{"2": 2, "64": 64, "4K": 4096, "4k": 4096, "1M": 1 << 20, "8MiB": 8 << 20, "1G": 1 << 30, "512B": 512, " 16 ": 16}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{"0": "at least 1 byte", "": "want a number", "-4": "want a number", "12Q": `"12Q"`,
		"K": "want a number", "2G": "larger than 1G", "99999999999999999999": "want a number", "1.5K": `"1.5K"`}
	for in, want := range bad {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q) = %v; want an error containing %q", in, err, want)
		}
	}
	if _, err := ParseSizes("2,64,4K,zz,1M"); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("ParseSizes with a bad token: %v", err)
	}
	s, err := SweepSizes(2, 8<<20)
	if err != nil || len(s) != 23 || s[0] != 2 || s[22] != 8<<20 {
		t.Errorf("SweepSizes(2, 8M) = %v, %v", s, err)
	}
	if _, err := SweepSizes(100, 10); err == nil {
		t.Error("SweepSizes(100, 10) accepted")
	}
}
