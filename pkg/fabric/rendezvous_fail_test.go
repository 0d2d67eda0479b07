package fabric

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// refusalCase runs a rendezvous of 4 ranks with one altered and checks
// rank 0's error and the altered rank's, which rank 0 tells it.
func refusalCase(t *testing.T, alter func(cfgs []RendezvousConfig) int, want string) {
	t.Helper()
	addr := freeAddr(t)
	cfgs := make([]RendezvousConfig, 4)
	for r := range cfgs {
		cfgs[r] = testConfig(r, 4)
		cfgs[r].Coordinator = addr
		cfgs[r].Timeout = time.Second
	}
	bad := alter(cfgs)
	_, errs := rendezvousAll(t, cfgs)
	if w := "rendezvous of rank 0 via coordinator: " + want; errs[0] == nil || errs[0].Error() != w {
		t.Errorf("rank 0: got %v\nwant %q", errs[0], w)
	}
	if w := "rank 0 ended the rendezvous: " + want; errs[bad] == nil || !strings.HasSuffix(errs[bad].Error(), w) {
		t.Errorf("rank %d: got %v\nwant ...%q", bad, errs[bad], w)
	}
	for r, err := range errs {
		if err == nil {
			t.Errorf("rank %d joined a refused rendezvous", r)
		}
	}
}

func TestRendezvousRefusesVersion(t *testing.T) {
	refusalCase(t, func(c []RendezvousConfig) int {
		c[2].Self.Version = "v0.9"
		return 2
	}, `rank 2 (host-2) runs rdma-bench version "v0.9", rank 0 (host-0) runs "v1.0": run one version on every host`)
}

func TestRendezvousRefusesParams(t *testing.T) {
	refusalCase(t, func(c []RendezvousConfig) int {
		c[3].Self.Params = map[string]string{"workloads": "write_lat,write_bw", "size": "4096", "iters": "10"}
		return 3
	}, `rank 3 (host-3) runs with parameters other than rank 0's (host-0): iters="10" (rank 0: unset), size="4096" (rank 0: "64")`)
}

func TestRendezvousRefusesSize(t *testing.T) {
	refusalCase(t, func(c []RendezvousConfig) int {
		c[1].World.Size = 8
		return 1
	}, `rank 1 (host-1) was started with world size 8, rank 0 (host-0) with 4: start every rank with the same size`)
}

func TestRendezvousRefusesDuplicate(t *testing.T) {
	addr := freeAddr(t)
	cfgs := make([]RendezvousConfig, 5)
	for r := range cfgs {
		cfgs[r] = testConfig(min(r, 3), 4)
		cfgs[r].Coordinator = addr
		cfgs[r].Timeout = time.Second
	}
	cfgs[4].Self.Hostname = "host-x"
	// Rank 2 comes late, so that both claimants of rank 3 are in before
	// every rank is.
	delayed := cfgs[2]
	cfgs = slices.Delete(cfgs, 2, 3)
	var late error
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(500 * time.Millisecond)
		var s *Session
		if s, late = Rendezvous(testCtx(t), delayed); s != nil {
			s.Close()
		}
	}()
	_, errs := rendezvousAll(t, cfgs)
	<-done
	if late == nil {
		t.Error("rank 2 joined a refused rendezvous")
	}
	got := ""
	if errs[0] != nil {
		got = errs[0].Error()
	}
	a := "rendezvous of rank 0 via coordinator: rank 3 claimed twice: by host-3 (127.0.0.1:20003) and by host-x (127.0.0.1:20003)"
	b := "rendezvous of rank 0 via coordinator: rank 3 claimed twice: by host-x (127.0.0.1:20003) and by host-3 (127.0.0.1:20003)"
	if got != a && got != b {
		t.Errorf("rank 0: got %q\nwant %q", got, a)
	}
	for _, r := range []int{2, 3} {
		if errs[r] == nil || !strings.Contains(errs[r].Error(), "rank 0 ended the rendezvous: rank 3 claimed twice") {
			t.Errorf("claimant %d: got %v", r, errs[r])
		}
	}
}

// TestRegistrationClaimingRankZero: a registration for rank 0 comes from
// no rank 0 (which coordinates): it is a duplicate of the coordinator.
func TestRegistrationClaimingRankZero(t *testing.T) {
	self := testMember(0)
	reg := testMember(0)
	reg.Hostname = "host-x"
	err := checkRegistration(self, 4, &message{Type: msgRegister, Size: 4, Member: &reg})
	want := "rank 0 claimed twice: by host-x (127.0.0.1:20000) and by host-0 (127.0.0.1:20000, the coordinator)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
	err = checkRegistration(self, 4, &message{Type: msgAck})
	if want := `first message is "ack", want a registration`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
	reg.Rank = 4
	err = checkRegistration(self, 4, &message{Type: msgRegister, Size: 4, Member: &reg})
	if want := "host-x claims rank 4, outside 0..3 of rank 0's world of 4"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
}

func TestCoordinatorNotAnswering(t *testing.T) {
	addr := freeAddr(t) // nobody listens
	cfg := testConfig(1, 2)
	cfg.Coordinator = addr
	cfg.Timeout = 400 * time.Millisecond
	start := time.Now()
	_, errs := rendezvousAll(t, []RendezvousConfig{cfg})
	want := "rendezvous of rank 1 via coordinator: coordinator " + addr + " (from --coordinator) did not answer within 400ms: dial tcp " + addr + ": connect: connection refused"
	if errs[0] == nil || errs[0].Error() != want {
		t.Errorf("got %v\nwant %q", errs[0], want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %s", d)
	}
}

// TestCoordinatorSilent: something accepts but never answers, or answers
// in another protocol.
func TestCoordinatorSilent(t *testing.T) {
	for _, c := range []struct {
		name, reply, want string
	}{
		{"silent", "", "timed out after 300ms: read tcp "},
		{"http", "HTTP/1.1 400 Bad Request\r\n\r\n", `peer is not an rdma-bench fabric process (frame starts "HTTP", want "RBF1")`},
		{"other version", "RBF2\x00\x00\x00\x02{}", "peer speaks fabric protocol version 2, this rank 1: run the same rdma-bench on every rank"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				t.Cleanup(func() { conn.Close() })
				conn.SetDeadline(time.Now().Add(5 * time.Second))
				_, _ = conn.Write([]byte(c.reply)) // rank 0 speaks first: its challenge
				_, _ = bufio.NewReader(conn).Peek(4)
			}()
			cfg := testConfig(1, 2)
			cfg.Coordinator = ln.Addr().String()
			cfg.IOTimeout = 300 * time.Millisecond
			_, errs := rendezvousAll(t, []RendezvousConfig{cfg})
			want := "rendezvous of rank 1 via coordinator: from rank 0 (coordinator " + cfg.Coordinator + "): " + c.want
			if errs[0] == nil || !strings.HasPrefix(errs[0].Error(), want) {
				t.Errorf("got %v\nwant %q...", errs[0], want)
			}
		})
	}
}

func TestRendezvousDirErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(0, 2)
	cfg.Dir = file
	_, errs := rendezvousAll(t, []RendezvousConfig{cfg})
	want := "rendezvous of rank 0 via dir: --rendezvous-dir " + file + ": not a directory: give a directory every host shares"
	if errs[0] == nil || errs[0].Error() != want {
		t.Errorf("got %v\nwant %q", errs[0], want)
	}

	if ro := unwritableDir(t); ro != "" {
		cfg.Dir = ro
		_, errs = rendezvousAll(t, []RendezvousConfig{cfg})
		want = "rendezvous of rank 0 via dir: --rendezvous-dir " + ro + " is not writable by rank 0: " + ro + "/" + AddrFileName + ": cannot create a file in directory "
		if errs[0] == nil || !strings.HasPrefix(errs[0].Error(), want) || !strings.HasSuffix(errs[0].Error(), ": give a directory on a filesystem every host shares") {
			t.Errorf("got %v\nwant %q...", errs[0], want)
		}
	}

	// Rank 0 never writes its address.
	cfg = testConfig(1, 2)
	cfg.Dir = t.TempDir()
	cfg.Timeout = 300 * time.Millisecond
	_, errs = rendezvousAll(t, []RendezvousConfig{cfg})
	want = "rendezvous of rank 1 via dir: rank 0 wrote no address in " + filepath.Join(cfg.Dir, AddrFileName) + " within 300ms"
	if errs[0] == nil || errs[0].Error() != want {
		t.Errorf("got %v\nwant %q", errs[0], want)
	}
}

// unwritableDir returns a directory this process cannot create files in:
// a read-only one, or for root (whom modes do not stop) /sys when mounted
// read-only; "" when there is none.
func unwritableDir(t *testing.T) string {
	d := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(d, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{d, "/sys"} {
		f, err := os.CreateTemp(c, ".probe-*")
		if err != nil {
			return c
		}
		f.Close()
		os.Remove(f.Name())
	}
	t.Log("no unwritable directory here: skipping that case")
	return ""
}

func TestRendezvousNoMethod(t *testing.T) {
	_, errs := rendezvousAll(t, []RendezvousConfig{testConfig(1, 2)})
	want := "rendezvous: no way to find rank 0: PMI_FD is unset (not under MPICH's mpiexec or srun --mpi=pmi2), and neither --coordinator HOST:PORT nor --rendezvous-dir DIR is given"
	if errs[0] == nil || errs[0].Error() != want {
		t.Errorf("got %v\nwant %q", errs[0], want)
	}
	cfg := testConfig(1, 2)
	cfg.Coordinator = "fabric-0"
	_, errs = rendezvousAll(t, []RendezvousConfig{cfg})
	want = `rendezvous: --coordinator "fabric-0": want HOST:PORT such as fabric-0.fabric:18600`
	if errs[0] == nil || errs[0].Error() != want {
		t.Errorf("got %v\nwant %q", errs[0], want)
	}
}
