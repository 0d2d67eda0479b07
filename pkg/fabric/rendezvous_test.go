package fabric

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"

	"github.com/rdma-bench/rdma-bench/pkg/fabric/pmi/pmitest"
)

func testMember(rank int) Member {
	return Member{
		Hostname: fmt.Sprintf("host-%d", rank), Addr: fmt.Sprintf("127.0.0.1:%d", 20000+rank),
		Device: "rxe0", Port: 1, MTUBytes: 1024, GID: "fe80::1", Version: "v1.0",
		Params: map[string]string{"workloads": "write_lat,write_bw", "size": "64"},
	}
}

// testConfig is rank's configuration in a world of size on 127.0.0.1.
func testConfig(rank, size int) RendezvousConfig {
	return RendezvousConfig{
		World: World{Rank: rank, Size: size, Launcher: LauncherManual},
		Self:  testMember(rank), Getenv: func(string) string { return "" },
		ListenHost: "127.0.0.1", AdvertiseHost: "127.0.0.1",
		Timeout: 5 * time.Second, IOTimeout: 2 * time.Second,
	}
}

// freeAddr returns a 127.0.0.1 address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	return "127.0.0.1:" + testenv.FreePort(t)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// rendezvousAll runs Rendezvous for every configuration in goroutines.
func rendezvousAll(t *testing.T, cfgs []RendezvousConfig) ([]*Session, []error) {
	t.Helper()
	ctx := testCtx(t)
	sessions := make([]*Session, len(cfgs))
	errs := make([]error, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sessions[i], errs[i] = Rendezvous(ctx, cfg)
		}()
	}
	wg.Wait()
	for _, s := range sessions {
		if s != nil {
			t.Cleanup(func() { s.Close() })
		}
	}
	return sessions, errs
}

func checkMembers(t *testing.T, sessions []*Session, errs []error, method string) {
	t.Helper()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	hash := ParamsHash(testMember(0).Params)
	for r, s := range sessions {
		if s.Method != method || len(s.Members) != len(sessions) {
			t.Fatalf("rank %d: method %s, %d members", r, s.Method, len(s.Members))
		}
		for i, m := range s.Members {
			want := testMember(i)
			if m.Rank != i || m.Hostname != want.Hostname || m.Addr != want.Addr || m.ParamsHash != hash || m.Device != "rxe0" || m.MTUBytes != 1024 {
				t.Fatalf("rank %d sees member %d as %+v", r, i, m)
			}
		}
	}
}

func TestRendezvousCoordinator(t *testing.T) {
	addr := freeAddr(t)
	cfgs := make([]RendezvousConfig, 4)
	for r := range cfgs {
		cfgs[r] = testConfig(r, 4)
		cfgs[r].Coordinator = addr
	}
	sessions, errs := rendezvousAll(t, cfgs)
	checkMembers(t, sessions, errs, MethodCoordinator)
	if sessions[2].CoordinatorAddr != addr {
		t.Errorf("rank 2 dialled %s, want %s", sessions[2].CoordinatorAddr, addr)
	}
}

func TestRendezvousDir(t *testing.T) {
	dir := t.TempDir()
	// A stale address from an earlier run: the others retry until rank 0
	// replaces it.
	if err := os.WriteFile(filepath.Join(dir, AddrFileName), []byte(freeAddr(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgs := make([]RendezvousConfig, 4)
	for r := range cfgs {
		cfgs[r] = testConfig(r, 4)
		cfgs[r].Dir = dir
	}
	sessions, errs := rendezvousAll(t, cfgs)
	checkMembers(t, sessions, errs, MethodDir)
	if _, err := os.Stat(filepath.Join(dir, AddrFileName)); !os.IsNotExist(err) {
		t.Errorf("address file left behind: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left in the directory: %v", entries)
	}
}

func TestRendezvousPMI(t *testing.T) {
	srv, err := pmitest.New(4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfgs := make([]RendezvousConfig, 4)
	for r := range cfgs {
		cfgs[r] = testConfig(r, 4)
		fd := srv.FD(r)
		cfgs[r].Getenv = func(k string) string {
			if k == "PMI_FD" {
				return fd
			}
			return ""
		}
		cfgs[r].Coordinator = "unused.invalid:1" // PMI comes first
	}
	sessions, errs := rendezvousAll(t, cfgs)
	checkMembers(t, sessions, errs, MethodPMI)
	if p := srv.Problems(); len(p) > 0 {
		t.Errorf("PMI protocol problems: %v", p)
	}
	put := srv.Commands(0)[3]
	if want := "cmd=put kvsname=kvs_fake_0 key=rdmabench_fabric_coord value=" + sessions[0].CoordinatorAddr; put != want {
		t.Errorf("rank 0 put %q, want %q", put, want)
	}
	if got := srv.Commands(1); len(got) != 6 || got[5] != "cmd=finalize" {
		t.Errorf("rank 1 sent %q", got)
	}
}

func TestRendezvousMissingRank(t *testing.T) {
	addr := freeAddr(t)
	cfgs := make([]RendezvousConfig, 2) // ranks 2 and 3 never start
	for r := range cfgs {
		cfgs[r] = testConfig(r, 4)
		cfgs[r].Coordinator = addr
		cfgs[r].Timeout = 500 * time.Millisecond
	}
	start := time.Now()
	_, errs := rendezvousAll(t, cfgs)
	want0 := "rendezvous of rank 0 via coordinator: ranks 2, 3 never registered within 500ms"
	if errs[0] == nil || errs[0].Error() != want0 {
		t.Errorf("rank 0: got %v, want %q", errs[0], want0)
	}
	want1 := "rendezvous of rank 1 via coordinator: rank 0 ended the rendezvous: ranks 2, 3 never registered within 500ms"
	if errs[1] == nil || errs[1].Error() != want1 {
		t.Errorf("rank 1: got %v, want %q", errs[1], want1)
	}
	t.Logf("gave up after %s", time.Since(start))
}
