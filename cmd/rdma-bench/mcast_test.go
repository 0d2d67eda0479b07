package main

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// mcastDoc is what a multicast run's JSON document must say.
type mcastDoc struct {
	Results []struct {
		Validation string `json:"validation"`
		Ops        uint64 `json:"ops"`
		Params     struct {
			Transport   string   `json:"transport"`
			Mcast       bool     `json:"mcast"`
			McastGroups []string `json:"mcast_groups"`
		} `json:"params"`
	} `json:"results"`
}

// checkMcast checks a -g run: it passed validation, moved messages, over
// UD, and names groups distinct multicast groups.
func checkMcast(t *testing.T, r result, groups int) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc mcastDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Results) != 1 {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := doc.Results[0]
	if got.Validation != "passed" || got.Ops == 0 || got.Params.Transport != "UD" || !got.Params.Mcast {
		t.Errorf("validation %q, ops %d, transport %q, mcast %t: want passed, some, UD and true",
			got.Validation, got.Ops, got.Params.Transport, got.Params.Mcast)
	}
	seen := map[string]bool{}
	for _, g := range got.Params.McastGroups {
		a, err := netip.ParseAddr(g)
		if err != nil || !a.Unmap().IsMulticast() || seen[g] {
			t.Errorf("group %q: not a multicast GID, or listed twice (%v)", g, err)
		}
		seen[g] = true
	}
	if len(got.Params.McastGroups) != groups {
		t.Errorf("groups %q: want %d", got.Params.McastGroups, groups)
	}
}

// TestMulticast: with -g (--mcg), send_bw and send_lat send UD datagrams
// to multicast groups, every receiving queue pair's its own, in loopback
// and as two processes, every payload checked; with no -c, -g chooses UD.
func TestMulticast(t *testing.T) {
	testenv.Device(t)
	for _, c := range []struct {
		args   []string
		groups int // the server's receiving QPs, then the client's
	}{
		{[]string{"send_bw", "-c", "UD", "-n", "2000", "-s", "1K"}, 1},
		{[]string{"send_bw", "-c", "UD", "-n", "2000", "-s", "512", "-q", "2"}, 2},
		{[]string{"send_bw", "-n", "1000", "-s", "1K", "-b"}, 2},
		{[]string{"send_bw", "-c", "UD", "-n", "2000", "-s", "1K", "--use-srq", "--post-api", "classic"}, 1},
		{[]string{"send_lat", "-c", "UD", "-n", "300"}, 2},
		{[]string{"send_lat", "-c", "UD", "-n", "300", "-e"}, 2},
	} {
		args := append([]string{"run", c.args[0], "--loopback", "--mcg", "--validate", "-o", "json"}, c.args[1:]...)
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			r := run(t, 90*time.Second, args...)
			checkMcast(t, r, c.groups)
			if !strings.Contains(strings.Join(c.args, " "), "-c UD") && !strings.Contains(r.stderr, "-g (--mcg) with no -c: over UD") {
				t.Errorf("no note that -g chose UD: %s", r.stderr)
			}
		})
	}
	t.Run("two processes", func(t *testing.T) {
		port := testenv.FreePort(t)
		startServer(t, port)
		checkMcast(t, run(t, 90*time.Second, "run", "send_bw", "127.0.0.1", "-p", port, "-g", "-c", "UD", "--validate",
			"-n", "2000", "-s", "1K", "-q", "2", "-o", "json"), 2)
	})
}

// TestMulticastRefused: -g is for send_lat and send_bw over UD; anything
// else is refused with exit 2, saying what is needed, before a device is
// opened (so with no device too).
func TestMulticastRefused(t *testing.T) {
	binary(t)
	for _, c := range []struct{ args, want string }{
		{"run write_bw --loopback --mcg", "-g applies to send_lat, send_bw, not write_bw"},
		{"run read_lat --loopback -g", "-g applies to send_lat, send_bw, not read_lat"},
		{"run send_bw --loopback -c RC --mcg", "-g (--mcg) needs -c UD: multicast carries unreliable datagrams, not RC"},
		{"run send_lat --loopback -c UC -g", "-g (--mcg) needs -c UD: multicast carries unreliable datagrams, not UC"},
		{"run tcp_bw --loopback -g", "-g applies to send_lat, send_bw, not tcp_bw"},
	} {
		r := run(t, 30*time.Second, strings.Fields(c.args)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "panic") {
			t.Errorf("rdma-bench %s: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
