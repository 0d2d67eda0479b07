package pmi_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/fabric/pmi"
	"github.com/rdma-bench/rdma-bench/pkg/fabric/pmi/pmitest"
)

func newServer(t *testing.T, size int) *pmitest.Server {
	t.Helper()
	s, err := pmitest.New(size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func open(t *testing.T, s *pmitest.Server, rank int) *pmi.Client {
	t.Helper()
	c, err := pmi.Open(s.FD(rank))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestPutBarrierGet is the exchange a fabric run makes: rank 0 puts its
// address, everyone enters the barrier, the others get the address.
func TestPutBarrierGet(t *testing.T) {
	const size = 4
	s := newServer(t, size)
	ctx := ctxFor(t, 10*time.Second)
	got := make([]string, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for rank := range size {
		c := open(t, s, rank)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[rank] = func() error {
				if err := c.Init(ctx); err != nil {
					return err
				}
				if rank == 0 {
					if err := c.Put(ctx, "coord", "10.0.0.1:4242"); err != nil {
						return err
					}
				}
				if err := c.Barrier(ctx); err != nil {
					return err
				}
				v, err := c.Get(ctx, "coord")
				got[rank] = v
				if err != nil {
					return err
				}
				return c.Finalize(ctx)
			}()
		}()
	}
	wg.Wait()
	for rank, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", rank, err)
		}
		if got[rank] != "10.0.0.1:4242" {
			t.Errorf("rank %d got %q", rank, got[rank])
		}
	}
	want0 := []string{
		"cmd=init pmi_version=1 pmi_subversion=1",
		"cmd=get_maxes",
		"cmd=get_my_kvsname",
		"cmd=put kvsname=kvs_fake_0 key=coord value=10.0.0.1:4242",
		"cmd=barrier_in",
		"cmd=get kvsname=kvs_fake_0 key=coord",
		"cmd=finalize",
	}
	if c := s.Commands(0); !slices.Equal(c, want0) {
		t.Errorf("rank 0 sent\n%s\nwant\n%s", strings.Join(c, "\n"), strings.Join(want0, "\n"))
	}
	if c := s.Commands(3); !slices.Equal(c, slices.Delete(slices.Clone(want0), 3, 4)) {
		t.Errorf("rank 3 sent\n%s", strings.Join(c, "\n"))
	}
	if p := s.Problems(); len(p) > 0 {
		t.Errorf("protocol problems: %v", p)
	}
}

func TestGetMissingKey(t *testing.T) {
	s := newServer(t, 1)
	c := open(t, s, 0)
	ctx := ctxFor(t, 5*time.Second)
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	// Init learnt the limits (keylen_max 64): a longer key is refused
	// before it reaches the process manager.
	if err := c.Put(ctx, strings.Repeat("k", 65), "v"); err == nil || !strings.Contains(err.Error(), "65 bytes, the process manager takes at most 64") {
		t.Errorf("a 65-byte key: %v, want the limit of 64 learnt by Init", err)
	}
	_, err := c.Get(ctx, "nothere")
	want := "pmi get: process manager answered rc=-1 (key_nothere_not_found)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestBarrierBounded: a barrier that not every process enters ends at the
// context's deadline, and when the context is cancelled.
func TestBarrierBounded(t *testing.T) {
	s := newServer(t, 2)
	c := open(t, s, 0)
	if err := c.Init(ctxFor(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	err := c.Barrier(ctxFor(t, 100*time.Millisecond))
	if err == nil || !strings.HasPrefix(err.Error(), "pmi barrier_in: no reply within 100ms: ") || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("got %v", err)
	}

	s2 := newServer(t, 2)
	c2 := open(t, s2, 0)
	if err := c2.Init(ctxFor(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err = c2.Barrier(ctx)
	if want := "pmi barrier_in: context canceled"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct{ fd, want string }{
		{"five", `PMI_FD="five": want a file descriptor number such as 5`},
		{"-1", `PMI_FD="-1": want a file descriptor number such as 5`},
	} {
		if _, err := pmi.Open(c.fd); err == nil || err.Error() != c.want {
			t.Errorf("Open(%q) = %v, want %q", c.fd, err, c.want)
		}
	}
	f, err := os.CreateTemp(t.TempDir(), "notasocket")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fd, err := dupFD(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pmi.Open(fd); err == nil || !strings.Contains(err.Error(), "want the process manager's socket") {
		t.Errorf("Open(regular file) = %v", err)
	}

	s := newServer(t, 1)
	c := open(t, s, 0)
	ctx := ctxFor(t, 5*time.Second)
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	want := `pmi value "a b": want a non-empty word without spaces, '=' or newlines`
	if err := c.Put(ctx, "k", "a b"); err == nil || err.Error() != want {
		t.Errorf("Put with space = %v, want %q", err, want)
	}
	want = `pmi key "` + strings.Repeat("k", 65) + `": 65 bytes, the process manager takes at most 64`
	if err := c.Put(ctx, strings.Repeat("k", 65), "v"); err == nil || err.Error() != want {
		t.Errorf("Put long key = %v, want %q", err, want)
	}
}

func TestParseLine(t *testing.T) {
	a, err := pmi.ParseLine("cmd=get_result rc=0 msg=success value=a=b")
	if err != nil {
		t.Fatal(err)
	}
	if a["cmd"] != "get_result" || a["value"] != "a=b" || a["rc"] != "0" {
		t.Errorf("got %v", a)
	}
	for _, bad := range []string{"rc=0", "cmd=x junk", ""} {
		if _, err := pmi.ParseLine(bad); err == nil {
			t.Errorf("ParseLine(%q) accepted", bad)
		}
	}
}
