package results

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// ParamDiff is a measured parameter whose value differs between the two
// sides of a pair.
type ParamDiff struct {
	Name, Base, New string
}

// Pair is a point present on both sides.
type Pair struct {
	// Label names the point, as [Describe] does; an ignored parameter that
	// differs is shown as "qps=1->4".
	Label     string
	Base, New *Point
	// Ignored are the ignored parameters whose values differ.
	Ignored []ParamDiff
}

// Matching pairs the points of two sides.
type Matching struct {
	// Pairs are the points on both sides, in the base's order.
	Pairs []*Pair
	// BaseOnly and NewOnly are the points on one side only.
	BaseOnly, NewOnly []*Point
	// Ignore are the parameters ignored when matching.
	Ignore []string
	// vary holds, per coarse key, the parameters that tell points apart.
	vary map[Key]map[string]bool
}

// Match pairs base and new points of the same identity. When points of
// the two sides agree on workload, transport, completion and size but
// differ in a measured parameter, it refuses, naming the parameter and
// both values, unless that parameter is in ignore. Points on one side
// only are listed in the Matching; no point in common is an error.
func Match(base, new []*Point, ignore []string) (*Matching, error) {
	for _, n := range ignore {
		if !slices.Contains(IgnorableParams, n) {
			return nil, fmt.Errorf("ignore parameter %q: not a measured parameter: want one of %s", n, strings.Join(IgnorableParams, ", "))
		}
	}
	if _, err := project(base, ignore, "base"); err != nil {
		return nil, err
	}
	nIdx, err := project(new, ignore, "new")
	if err != nil {
		return nil, err
	}
	vary := varying(append(slices.Clone(base), new...), ignore)
	m := &Matching{Ignore: slices.Clone(ignore), vary: vary}
	matched := map[*Point]bool{}
	for _, b := range base {
		k := b.Key.without(ignore)
		n, ok := nIdx[k]
		if !ok {
			continue
		}
		matched[b], matched[n] = true, true
		p := &Pair{Base: b, New: n}
		label := Describe(k, vary[k.coarse()])
		for _, name := range ignore {
			if bv, nv := b.Key.Param(name), n.Key.Param(name); bv != nv {
				p.Ignored = append(p.Ignored, ParamDiff{name, bv, nv})
				label += fmt.Sprintf(" %s=%s->%s", name, orNone(bv), orNone(nv))
			}
		}
		p.Label = label
		m.Pairs = append(m.Pairs, p)
	}
	for _, b := range base {
		if !matched[b] {
			m.BaseOnly = append(m.BaseOnly, b)
		}
	}
	for _, n := range new {
		if !matched[n] {
			m.NewOnly = append(m.NewOnly, n)
		}
	}
	if err := refuseMismatch(m, ignore); err != nil {
		return nil, err
	}
	if len(m.Pairs) == 0 {
		if why := kinDiff(base, new, ignore); why != "" {
			return nil, errors.New("no point in common: " + why)
		}
		return nil, fmt.Errorf("no point in common: the base has %s, the new side %s", listPoints(base), listPoints(new))
	}
	return m, nil
}

// kinDiff names the parameters that keep apart the first base and new
// points of the same workload, transport and size, and the flags that
// would compare them; "" when no two points are that close.
func kinDiff(base, new []*Point, ignore []string) string {
	for _, b := range base {
		for _, n := range new {
			if b.Key.Workload != n.Key.Workload || b.Key.Transport != n.Key.Transport || b.Key.SizeBytes != n.Key.SizeBytes {
				continue
			}
			var bs, ns, flags []string
			for _, name := range IgnorableParams {
				if bv, nv := b.Key.Param(name), n.Key.Param(name); bv != nv && !slices.Contains(ignore, name) {
					bs = append(bs, name+"="+orNone(bv))
					ns = append(ns, name+"="+orNone(nv))
					flags = append(flags, "--ignore-param "+name)
				}
			}
			if len(flags) == 0 {
				continue
			}
			return fmt.Sprintf("the base has %s, the new side %s (%s %s %s); add %s to compare them",
				strings.Join(bs, " "), strings.Join(ns, " "), b.Key.Workload, b.Key.Transport, display.Size(b.Key.SizeBytes),
				strings.Join(flags, " "))
		}
	}
	return ""
}

// project indexes points by their key without the ignored parameters,
// refusing two points that only an ignored parameter tells apart.
func project(pts []*Point, ignore []string, side string) (map[Key]*Point, error) {
	idx := map[Key]*Point{}
	for _, p := range pts {
		k := p.Key.without(ignore)
		if q, ok := idx[k]; ok {
			var d []string
			for _, n := range ignore {
				if a, b := q.Key.Param(n), p.Key.Param(n); a != b {
					d = append(d, fmt.Sprintf("%s=%s and %s=%s", n, orNone(a), n, orNone(b)))
				}
			}
			return nil, fmt.Errorf("the %s side has %s with %s: ignoring %s would pool different points; ignore only parameters that differ between the sides",
				side, Describe(k, nil), strings.Join(d, ", "), strings.Join(ignore, ", "))
		}
		idx[k] = p
	}
	return idx, nil
}

// refuseMismatch refuses unmatched points of both sides that agree on all
// but measured parameters.
func refuseMismatch(m *Matching, ignore []string) error {
	for _, b := range m.BaseOnly {
		for _, n := range m.NewOnly {
			if b.Key.coarse() != n.Key.coarse() {
				continue
			}
			var diffs, names []string
			for i, name := range IdentityParams {
				if slices.Contains(ignore, name) || b.Key.Params[i] == n.Key.Params[i] {
					continue
				}
				names = append(names, name)
				diffs = append(diffs, fmt.Sprintf("%s is %s in the base (%s) and %s in the new side (%s)",
					name, orNone(b.Key.Params[i]), b.Docs[0].Path, orNone(n.Key.Params[i]), n.Docs[0].Path))
			}
			flags := "--ignore-param " + strings.Join(names, " --ignore-param ")
			return fmt.Errorf("%s: %s: points measured with other parameters are not compared; %s compares them anyway",
				Describe(b.Key.coarse(), nil), strings.Join(diffs, "; "), flags)
		}
	}
	return nil
}

// varying returns, for each coarse key, the parameters whose values differ
// among the points sharing it (ignored ones blanked).
func varying(pts []*Point, ignore []string) map[Key]map[string]bool {
	seen := map[Key]Key{}
	out := map[Key]map[string]bool{}
	for _, p := range pts {
		k := p.Key.without(ignore)
		c := k.coarse()
		first, ok := seen[c]
		if !ok {
			seen[c] = k
			continue
		}
		for i, name := range IdentityParams {
			if first.Params[i] != k.Params[i] {
				if out[c] == nil {
					out[c] = map[string]bool{}
				}
				out[c][name] = true
			}
		}
	}
	return out
}

// Describe names a point of either side as the pairs' labels do.
func (m *Matching) Describe(p *Point) string {
	k := p.Key.without(m.Ignore)
	return Describe(k, m.vary[k.coarse()])
}

func listPoints(pts []*Point) string {
	if len(pts) == 0 {
		return "no point"
	}
	const most = 4
	var names []string
	for i, p := range pts {
		if i == most {
			names = append(names, fmt.Sprintf("and %d more", len(pts)-most))
			break
		}
		names = append(names, Describe(p.Key, nil))
	}
	return fmt.Sprintf("%d point(s) (%s)", len(pts), strings.Join(names, ", "))
}

func orNone(v string) string {
	if v == "" {
		return "(absent)"
	}
	return v
}
