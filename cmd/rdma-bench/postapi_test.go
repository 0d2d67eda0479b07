package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestPostAPI: every verb posts through the extended API (ibv_wr_*) and
// through ibv_post_send, lists and inline data included, with every
// payload checked; the document names the API used, ex by default where
// the device has it.
func TestPostAPI(t *testing.T) {
	testenv.Device(t)
	cases := [][]string{
		{"write_lat", "-n", "300"},
		{"read_lat", "-n", "300"},
		{"send_lat", "-n", "300", "-c", "UD"},
		{"atomic_lat", "-n", "300", "-A", "cswap"},
		{"write_bw", "-n", "3000", "-s", "64", "-l", "8", "-q", "2"},
		{"write_bw", "-n", "1000", "-s", "4K", "--imm"},
		{"read_bw", "-n", "1000", "-s", "4K"},
		{"send_bw", "-n", "2000", "-s", "256", "-l", "4"},
		{"atomic_bw", "-n", "1000"},
	}
	for _, api := range []string{"ex", "classic", ""} {
		for _, c := range cases {
			if api == "" && c[0] != "write_bw" {
				continue
			}
			args := append([]string{"run", c[0], "--loopback", "--validate", "-o", "json"}, c[1:]...)
			if api != "" {
				args = append(args, "--post-api", api)
			}
			t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
				got := oneResult(t, run(t, 90*time.Second, args...))
				want := api
				if want == "" {
					want = "ex" // rxe has the extended API
				}
				if got.Params.PostAPI != want || got.Ops == 0 || (c[0] != "atomic_lat" && c[0] != "atomic_bw" && got.Validation != "passed") {
					t.Errorf("post_api %q, ops %d, validation %q: want %q, some, passed", got.Params.PostAPI, got.Ops, got.Validation, want)
				}
			})
		}
	}
}
