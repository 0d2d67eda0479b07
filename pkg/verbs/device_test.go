package verbs_test

/* Integration tests: they need an RDMA device (soft-RoCE in `make test`). */

import (
	"errors"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// openDevice opens the test device and closes it at cleanup.
func openDevice(t *testing.T) *verbs.Context {
	t.Helper()
	name := testenv.Device(t)
	ctx, err := verbs.Open(name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := ctx.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return ctx
}

func TestOpenAndQuery(t *testing.T) {
	ctx := openDevice(t)
	names, err := verbs.DeviceNames()
	if err != nil || len(names) == 0 {
		t.Fatalf("DeviceNames = %v, %v", names, err)
	}
	attr, err := ctx.Query()
	if err != nil {
		t.Fatal(err)
	}
	if attr.MaxQP <= 0 || attr.MaxQPWR <= 0 || attr.MaxCQE <= 0 || attr.MaxMRSize == 0 || attr.MaxSGE <= 0 || attr.PhysPortCount < 1 {
		t.Errorf("implausible device attributes: %+v", attr)
	}
	if attr.NodeGUID == 0 {
		t.Errorf("node guid is zero")
	}
	pa, err := ctx.ActivePort(1)
	if err != nil {
		t.Fatal(err)
	}
	if !pa.ActiveMTU.Valid() {
		t.Errorf("active mtu %d is not a valid MTU", pa.ActiveMTU)
	}
	if pa.GIDTableLen <= 0 {
		t.Errorf("gid table length %d", pa.GIDTableLen)
	}
	// Closing twice and closing nil are harmless.
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	var nilCtx *verbs.Context
	if err := nilCtx.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenUnknownDeviceNamesTheOthers(t *testing.T) {
	name := testenv.Device(t)
	_, err := verbs.Open("nosuch")
	if err == nil || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), name) {
		t.Fatalf("Open(nosuch) = %v; want an error naming nosuch and %s", err, name)
	}
}

func TestPortOutOfRange(t *testing.T) {
	ctx := openDevice(t)
	attr, err := ctx.Query()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.QueryPort(attr.PhysPortCount + 1); err == nil {
		t.Fatalf("QueryPort(%d) succeeded on a device with %d ports", attr.PhysPortCount+1, attr.PhysPortCount)
	}
}

func TestGIDTableMatchesVerbs(t *testing.T) {
	ctx := openDevice(t)
	table, err := ctx.GIDTable(1)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := ctx.QueryPort(1)
	if err != nil {
		t.Fatal(err)
	}
	// Three sources must agree: the one-call table, sysfs, and one
	// ibv_query_gid(_ex) per index.
	sysfs, err := verbs.ReadGIDTable(verbs.SysfsRoot, ctx.Name(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sysfs) != len(table) || len(table) == 0 {
		t.Fatalf("ibv_query_gid_table gave %d entries, sysfs %d", len(table), len(sysfs))
	}
	for i, e := range table {
		if s := sysfs[i]; s != e {
			t.Errorf("entry %d: ibv_query_gid_table %+v, sysfs %+v", i, e, s)
		}
		g, typ, err := ctx.QueryGID(1, e.Index)
		if err != nil {
			t.Fatalf("QueryGID(%d): %v", e.Index, err)
		}
		if g != e.GID || typ != e.Type {
			t.Errorf("gid %d: table %s %s, ibv_query_gid(_ex) %s %s", e.Index, e.GID, e.Type, g, typ)
		}
	}
	sel, err := verbs.SelectGID(table, -1)
	if err != nil {
		t.Fatal(err)
	}
	if pa.LinkLayer == verbs.LinkEthernet && (sel.Type != verbs.GIDTypeRoCEv2 || !sel.GID.IsIPv4()) {
		t.Errorf("on RoCE the chosen gid should be RoCE v2 IPv4, got %d %s %s", sel.Index, sel.Type, sel.GID)
	}
	if _, err := verbs.SelectGID(table, pa.GIDTableLen+5); err == nil {
		t.Errorf("gid index %d accepted", pa.GIDTableLen+5)
	}
}

func TestBufferAndMR(t *testing.T) {
	ctx := openDevice(t)
	pd, err := ctx.NewPD()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pd.Close() })
	buf, err := verbs.NewBuffer(10000)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { buf.Close() })
	if buf.Addr()%4096 != 0 || buf.Len() != 10000 {
		t.Fatalf("buffer addr %#x len %d: want page aligned, 10000", buf.Addr(), buf.Len())
	}
	mr, err := pd.RegisterMR(buf, verbs.AccessLocalWrite|verbs.AccessRemoteRead)
	if err != nil {
		t.Fatal(err)
	}
	if mr.Addr() != buf.Addr() || mr.Len() != buf.Len() {
		t.Errorf("mr covers %#x+%d, buffer %#x+%d", mr.Addr(), mr.Len(), buf.Addr(), buf.Len())
	}
	for _, c := range []interface{ Close() error }{mr, mr, pd, pd, buf, buf} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := verbs.NewBuffer(0); err == nil {
		t.Error("NewBuffer(0) succeeded")
	}
}

func TestWCErrorText(t *testing.T) {
	err := error(&verbs.WCError{Status: verbs.WCRemAccessErr, Opcode: verbs.WCRDMAWrite, WRID: 7})
	var wce *verbs.WCError
	if !errors.As(err, &wce) || !strings.Contains(err.Error(), "remote access error") || !strings.Contains(err.Error(), "rdma write") || !strings.Contains(err.Error(), "wr_id 7") {
		t.Fatalf("WCError text %q", err)
	}
	if s := verbs.WCRNRRetryExcErr.String(); s != "RNR retry counter exceeded" {
		t.Errorf("RNR status text %q", s)
	}
}
