package catalog

import "testing"

// TestLoaderOf: a latency workload's loader is its bandwidth counterpart;
// atomics, TCP and bandwidth workloads have none.
func TestLoaderOf(t *testing.T) {
	for lat, want := range map[string]string{"write_lat": "write_bw", "send_lat": "send_bw", "read_lat": "read_bw",
		"atomic_lat": "", "tcp_lat": "", "write_bw": "", "tcp_bw": ""} {
		w, _ := Lookup(lat)
		got, ok := LoaderOf(w)
		if got.Name != want || ok != (want != "") {
			t.Errorf("LoaderOf(%s) = %q, %v; want %q", lat, got.Name, ok, want)
		}
	}
}
