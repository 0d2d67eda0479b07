package fabric

import "testing"

// TestParamsHash checks against hashes computed independently (Python's
// hashlib.sha256 of the same canonical JSON, first 16 hex digits).
func TestParamsHash(t *testing.T) {
	for _, c := range []struct {
		params    map[string]string
		canonical string
		hash      string
	}{
		{map[string]string{"size": "64"}, `{"size":"64"}`, "3465f247421f3490"},
		{nil, `{}`, "44136fa355b3678a"},
		{map[string]string{"workloads": "write_lat,write_bw", "size": "64"}, `{"size":"64","workloads":"write_lat,write_bw"}`, "90ad43650814c562"},
	} {
		if got := CanonicalParams(c.params); got != c.canonical {
			t.Errorf("CanonicalParams(%v) = %s, want %s", c.params, got, c.canonical)
		}
		if got := ParamsHash(c.params); got != c.hash {
			t.Errorf("ParamsHash(%v) = %s, want %s", c.params, got, c.hash)
		}
	}
	if ParamsHash(map[string]string{}) != ParamsHash(nil) {
		t.Error("empty and nil parameters differ")
	}
}

func TestFormatRanks(t *testing.T) {
	for _, c := range []struct {
		ranks []int
		want  string
	}{
		{[]int{2, 3}, "2, 3"},
		{[]int{1}, "1"},
		{[]int{1, 2, 3, 4, 9, 11, 12}, "1-4, 9, 11, 12"},
	} {
		if got := formatRanks(c.ranks); got != c.want {
			t.Errorf("formatRanks(%v) = %q, want %q", c.ranks, got, c.want)
		}
	}
}
