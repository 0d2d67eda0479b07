package results

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// metaFields are the document metadata a comparison shows when it
// differs, with how to read each from a document.
var metaFields = []struct {
	name string
	get  func(d *document.Document) string
}{
	{"label", func(d *document.Document) string { return d.Label }},
	{"rdma-bench", func(d *document.Document) string { return d.Tool.Version }},
	{"commit", func(d *document.Document) string { return d.Tool.Commit }},
	{"host", func(d *document.Document) string { return d.Host.Hostname }},
	{"kernel", func(d *document.Document) string { return d.Host.Kernel }},
	{"rdma-core", func(d *document.Document) string { return d.Host.RDMACore }},
	{"cpu", func(d *document.Document) string { return d.Host.CPUModel }},
	{"device", dev(func(v *document.Device) string { return v.Name })},
	{"device chosen", dev(func(v *document.Device) string { return v.Chosen })},
	{"driver", dev(func(v *document.Device) string { return v.Driver })},
	{"provider", dev(func(v *document.Device) string { return v.Provider })},
	{"firmware", dev(func(v *document.Device) string { return v.FirmwareVersion })},
	{"link layer", dev(func(v *document.Device) string { return v.LinkLayer })},
	{"mtu", dev(func(v *document.Device) string { return itoa(v.MTU) })},
}

func dev(get func(*document.Device) string) func(*document.Document) string {
	return func(d *document.Document) string {
		if d.Device == nil {
			return ""
		}
		return get(d.Device)
	}
}

func itoa(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// pointParams are params keys that are the point's identity or the
// device's metadata, never listed as differing parameters.
var pointParams = catalog.PointParams()

// MetaDiff lists the metadata that differs between the two sides: the
// labels, rdma-bench's version and commit, host, kernel, rdma-core, CPU,
// device, why it was chosen, driver, provider, firmware, link layer and MTU (a side of several
// documents shows each distinct value, joined by ", "), then, as "param
// NAME", every parameter outside the point identity (and every ignored
// one) whose values differ within a compared pair, with the values of the
// pairs where they differ.
func MetaDiff(base, new []*document.Document, m *Matching) []compare.MetaDiff {
	var out []compare.MetaDiff
	for _, f := range metaFields {
		b, n := distinct(base, f.get), distinct(new, f.get)
		if b != n {
			out = append(out, compare.MetaDiff{Field: f.name, Base: b, New: n})
		}
	}
	if m == nil {
		return out
	}
	bv, nv := map[string][]string{}, map[string][]string{}
	for _, p := range m.Pairs {
		for _, key := range paramKeys(p) {
			b, n := paramValues(p.Base, key), paramValues(p.New, key)
			if !slices.Equal(b, n) {
				bv[key] = union(bv[key], b)
				nv[key] = union(nv[key], n)
			}
		}
	}
	keys := make([]string, 0, len(bv))
	for k := range bv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		// A parameter that is also the device's metadata (the MTU) is
		// listed once, as the metadata.
		if slices.ContainsFunc(out, func(d compare.MetaDiff) bool { return d.Field == k }) {
			continue
		}
		out = append(out, compare.MetaDiff{Field: "param " + k, Base: strings.Join(bv[k], ", "), New: strings.Join(nv[k], ", ")})
	}
	return out
}

// paramKeys are the params keys of a pair to check: every key outside
// the identity on either side, and the ignored identity parameters.
func paramKeys(p *Pair) []string {
	var keys []string
	for _, pt := range []*Point{p.Base, p.New} {
		for _, r := range pt.Results {
			for k := range r.Params {
				if !slices.Contains(pointParams, k) && !slices.Contains(IdentityParams, k) && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	for _, d := range p.Ignored {
		keys = append(keys, d.Name)
	}
	slices.Sort(keys)
	return keys
}

// paramValues are the distinct values of a parameter over a point's
// results, sorted.
func paramValues(p *Point, key string) []string {
	var out []string
	for _, r := range p.Results {
		v := r.Param(key)
		if slices.Contains(IgnorableParams, key) {
			v = KeyOf(r).Param(key) // the completion is a field, absent values defaulted
		}
		if v == "" {
			v = "(absent)"
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, cmpValue)
	return out
}

// cmpValue orders parameter values: numbers by value, before text.
func cmpValue(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func union(a, b []string) []string {
	for _, v := range b {
		if !slices.Contains(a, v) {
			a = append(a, v)
		}
	}
	slices.SortFunc(a, cmpValue)
	return a
}

// distinct joins the distinct values of a field over documents, in the
// order first found; "" when none has one.
func distinct(docs []*document.Document, get func(*document.Document) string) string {
	return strings.Join(distinctValues(docs, get), ", ")
}

// distinctValues are the distinct values of a field over documents, in the
// order first found.
func distinctValues(docs []*document.Document, get func(*document.Document) string) []string {
	var vals []string
	seen := map[string]bool{}
	for _, d := range docs {
		if v := get(d); v != "" && !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	return vals
}

// briefList joins up to briefMax values; more are shortened to the first
// few, an ellipsis, the last and how many there are: "r0000, r0001,
// r0002, …, r0899 (900 in all)".
func briefList(vals []string) string {
	const briefMax = 6
	if len(vals) <= briefMax {
		return strings.Join(vals, ", ")
	}
	return fmt.Sprintf("%s, …, %s (%d in all)", strings.Join(vals[:briefMax-3], ", "), vals[len(vals)-1], len(vals))
}
