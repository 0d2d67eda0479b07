package results

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// sides loads and pools two sides.
func sides(t *testing.T, base, new []string, opt Options) (bd, nd []*document.Document, bp, np []*Point) {
	t.Helper()
	var err error
	if bd, err = Load(base...); err != nil {
		t.Fatal(err)
	}
	if nd, err = Load(new...); err != nil {
		t.Fatal(err)
	}
	if bp, err = Pool(bd, opt); err != nil {
		t.Fatal(err)
	}
	if np, err = Pool(nd, opt); err != nil {
		t.Fatal(err)
	}
	return bd, nd, bp, np
}

// TestSeries: runs of a point in two documents of one side pool; every
// metric that applies and has figures becomes a series with each run's
// value; CPU costs without a total fall back to the local side.
func TestSeries(t *testing.T) {
	_, _, bp, np := sides(t, []string{"testdata/base"}, []string{"testdata/new"}, Options{})
	m, err := Match(bp, np, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, p := range m.Pairs {
		pairs = append(pairs, p.Label)
	}
	if want := []string{"write_lat RC poll 64 B", "write_bw RC poll 64 KiB"}; !slices.Equal(pairs, want) {
		t.Errorf("pairs %q, want %q", pairs, want)
	}
	if len(m.BaseOnly) != 1 || m.Describe(m.BaseOnly[0]) != "tcp_lat TCP poll 64 B" ||
		len(m.NewOnly) != 1 || m.Describe(m.NewOnly[0]) != "send_lat RC poll 64 B" {
		t.Errorf("one-sided points: base %v, new %v", m.BaseOnly, m.NewOnly)
	}
	series, notes := m.Series(metric.All(), nil, nil)
	var got []string
	for _, s := range series {
		got = append(got, fmt.Sprintf("%s %s %v %v", s.Point, s.Metric.Name, s.Base, s.New))
	}
	want := []string{
		"write_lat RC poll 64 B lat.p50 [2 2.1 2.2 2.3] [2.4 2.5 2.6]",
		"write_lat RC poll 64 B lat.p99 [3 3.15 3.3 3.45] [3.6 3.75 3.9]",
		"write_lat RC poll 64 B lat.p99_9 [4 4.2 4.4 4.6] [4.8 5 5.2]",
		"write_lat RC poll 64 B cpu.op [1.5 1.6 1.7 1.8] [1.5 1.6 1.7]",
		"write_bw RC poll 64 KiB bw [9 9.1 9.2] [8 8.1 8.2]",
		"write_bw RC poll 64 KiB msgrate [0.017166 0.017357 0.017548] [0.015259 0.01545 0.01564]",
		"write_bw RC poll 64 KiB cpu.op [1 1 1] [1 1 1]",
		"write_bw RC poll 64 KiB cpu.gb [0.5 0.6 0.7] [0.5 0.6 0.7]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(notes) != 0 {
		t.Errorf("notes %q, want none", notes)
	}
}

// TestMismatchedParameter: points that differ in a measured parameter are
// refused with the parameter and both values, unless it is ignored; then
// the label and the metadata say so.
func TestMismatchedParameter(t *testing.T) {
	bd, nd, bp, np := sides(t, []string{"testdata/base"}, []string{"testdata/qps4.json"}, Options{})
	_, err := Match(bp, np, nil)
	want := "write_bw RC poll 64 KiB: qps is 1 in the base (testdata/base/a.json) and 4 in the new side (testdata/qps4.json): " +
		"points measured with other parameters are not compared; --ignore-param qps compares them anyway"
	if err == nil || err.Error() != want {
		t.Fatalf("mismatch:\n got  %v\n want %s", err, want)
	}
	if _, err := Match(bp, np, []string{"iterations"}); err == nil || !strings.HasPrefix(err.Error(), `ignore parameter "iterations": not a measured parameter: want one of completion, tx_depth, rx_depth, cq_mod,`) {
		t.Errorf("unknown ignore: %v", err)
	}
	m, err := Match(bp, np, []string{"qps"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pairs) != 1 || m.Pairs[0].Label != "write_bw RC poll 64 KiB qps=1->4" {
		t.Fatalf("pairs %+v", m.Pairs)
	}
	diff := MetaDiff(bd, nd, m)
	if !slices.Contains(diff, compare.MetaDiff{Field: "param qps", Base: "1", New: "4"}) {
		t.Errorf("meta diff %v lacks param qps 1 -> 4", diff)
	}
	// No point in common at all is an error.
	_, _, hp, _ := sides(t, []string{"testdata/hist.json"}, []string{"testdata/hist.json"}, Options{})
	_, err = Match(hp, np, nil)
	want = "no point in common: the base has 1 point(s) (write_lat RC poll 8 B), the new side 1 point(s) (write_bw RC poll 64 KiB qps=4)"
	if err == nil || err.Error() != want {
		t.Errorf("nothing in common:\n got  %v\n want %s", err, want)
	}
}

// TestIgnorePooling: ignoring a parameter that tells two points of one
// side apart is refused.
func TestIgnorePooling(t *testing.T) {
	_, _, bp, np := sides(t, []string{"testdata/base", "testdata/qps4.json"}, []string{"testdata/new"}, Options{})
	_, err := Match(bp, np, []string{"qps"})
	want := "the base side has write_bw RC poll 64 KiB with qps=1 and qps=4: ignoring qps would pool different points; ignore only parameters that differ between the sides"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// Without ignoring, qps=4 is a point of the base only, named by it.
	m, err := Match(bp, np, nil)
	if err != nil {
		t.Fatal(err)
	}
	var only []string
	for _, p := range m.BaseOnly {
		only = append(only, m.Describe(p))
	}
	if want := []string{"tcp_lat TCP poll 64 B", "write_bw RC poll 64 KiB qps=4"}; !slices.Equal(only, want) {
		t.Errorf("base only %q, want %q", only, want)
	}
}

func TestMetaDiff(t *testing.T) {
	bd, nd, bp, np := sides(t, []string{"testdata/base"}, []string{"testdata/new"}, Options{})
	m, err := Match(bp, np, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range MetaDiff(bd, nd, m) {
		got = append(got, d.Field+": "+d.Base+" -> "+d.New)
	}
	want := []string{
		"label: base -> candidate",
		"rdma-bench: 0.2.0 -> 0.3.0",
		"commit: aaa1111 -> bbb2222",
		"kernel: 6.1.0-18-amd64 -> 6.1.0-21-amd64",
		"firmware: 20.31.1014 -> 20.35.2000",
		"param iterations: 1000 -> 2000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("meta diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An old document: rdma_core and driver absent against known.
	od, _ := Load("testdata/old.json")
	var fields []string
	for _, d := range MetaDiff(od, nd, nil) {
		fields = append(fields, d.Field+": "+d.Base+" -> "+d.New)
	}
	if !slices.Contains(fields, "rdma-core:  -> 44.0") || !slices.Contains(fields, "driver:  -> mlx5_core") {
		t.Errorf("old against new: %q", fields)
	}
	// The MTU, the device's and a parameter a comparison ignores, is
	// listed once.
	bd, nd, bp, np = sides(t, []string{"testdata/base"}, []string{newWithMTU1024(t)}, Options{})
	if m, err = Match(bp, np, []string{"mtu"}); err != nil {
		t.Fatal(err)
	}
	var mtu []string
	for _, d := range MetaDiff(bd, nd, m) {
		if strings.Contains(d.Field, "mtu") {
			mtu = append(mtu, d.Field+": "+d.Base+" -> "+d.New)
		}
	}
	if !slices.Equal(mtu, []string{"mtu: 4096 -> 1024"}) {
		t.Errorf("the MTU in the meta diff: %q, want it once", mtu)
	}
}

// TestNoPointInCommon: two sides whose points differ only in the
// completion mode and a measured parameter are refused with both named,
// and the flags that compare them; with those flags they pair.
func TestNoPointInCommon(t *testing.T) {
	pt := func(completion, qps string) *Point {
		k := Key{Workload: "write_lat", Transport: "RC", Completion: completion, SizeBytes: 64}
		k.Params[slices.Index(IdentityParams, "qps")] = qps
		return &Point{Key: k, Latency: true}
	}
	base, nw := []*Point{pt("event", "1")}, []*Point{pt("poll", "4")}
	_, err := Match(base, nw, nil)
	want := "no point in common: the base has completion=event qps=1, the new side completion=poll qps=4 (write_lat RC 64 B); " +
		"add --ignore-param completion --ignore-param qps to compare them"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	m, err := Match(base, nw, []string{"completion", "qps"})
	if err != nil || len(m.Pairs) != 1 || m.Pairs[0].Label != "write_lat RC 64 B completion=event->poll qps=1->4" {
		t.Errorf("ignoring both: %v %+v", err, m)
	}
}

// TestMetaDeviceWords: the report's metadata names why the device was
// chosen and its provider, from the one list compare's differences use.
func TestMetaDeviceWords(t *testing.T) {
	d := &document.Document{Device: &document.Device{Name: "rxe0", Chosen: "the only RDMA device", Provider: "/lib/librxe-rdmav34.so"}}
	d.Host.RDMACore = "44.0"
	got := map[string]string{}
	for _, kv := range Meta([]*document.Document{d}) {
		got[kv[0]] = kv[1]
	}
	for k, want := range map[string]string{"device": "rxe0", "device chosen": "the only RDMA device", "provider": "/lib/librxe-rdmav34.so", "rdma-core": "44.0"} {
		if got[k] != want {
			t.Errorf("meta %q = %q, want %q (all: %v)", k, got[k], want, got)
		}
	}
}
