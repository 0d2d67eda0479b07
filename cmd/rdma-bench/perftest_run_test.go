//go:build cgo

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestPerftestSpellingsRun: perftest's spellings that rdma-bench rewrites
// (aliases, a switch that sets a value, no-ops) run for real on the device
// and reach the document as rdma-bench's parameters; -o perftest prints
// perftest's header. perftest's -R (rdma_cm) is left out: rdma_cm needs a
// routable netdev, not the VM's lo.
func TestPerftestSpellingsRun(t *testing.T) {
	testenv.Device(t)
	doc := func(t *testing.T, args ...string) measured {
		t.Helper()
		return oneResult(t, run(t, 90*time.Second, append(args, "-o", "json")...))
	}
	if p := doc(t, "run", "atomic_bw", "--loopback", "-A", "CMP_AND_SWAP", "-n", "500"); p.Params.Atomic != "cswap" {
		t.Errorf("-A CMP_AND_SWAP: atomic %q", p.Params.Atomic)
	}
	p := doc(t, "run", "write_bw", "--loopback", "--bidirectional", "--post_list", "4", "--inline_size", "64", "-S", "1",
		"-s", "64", "-n", "2000", "--use_old_post_send", "--report_gbits", "-F", "--validate")
	if !p.Params.Bidir || p.Params.PostList != 4 || p.Params.InlineBytes != 64 || p.Params.PostAPI != "classic" {
		t.Errorf("write_bw with perftest's spellings: %+v", p)
	}
	setHugePages(t, 16)
	if p := doc(t, "run", "send_bw", "--loopback", "--use-srq", "--use_hugepages", "-s", "4K", "-n", "1000", "--validate"); !p.Params.SRQ || p.Params.PageBytes != 2<<20 {
		t.Errorf("send_bw --use-srq --use_hugepages: %+v", p)
	}
	for _, c := range []struct{ args, header string }{
		{"write_bw -s 64 -n 2000", " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"},
		{"write_lat -s 64 -n 500", " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "},
	} {
		r := run(t, 90*time.Second, append(append([]string{"run"}, strings.Fields(c.args)...), "--loopback", "-o", "perftest")...)
		if r.code != 0 || !strings.Contains(r.stdout, c.header) {
			t.Errorf("%s -o perftest: exit %d, want the header %q in:\n%s%s", c.args, r.code, c.header, r.stdout, r.stderr)
		}
	}
}
