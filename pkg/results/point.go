package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// IdentityParams are the parameters (keys of a result's params) that
// change what is measured: two results differing in one of them are
// different points (package catalog's table).
var IdentityParams = catalog.IdentityParams()

// nIdentity is the room a key has for identity parameters.
const nIdentity = catalog.IdentityCap

// IgnorableParams are the parameters a comparison can be told to ignore
// (compare --ignore-param): the completion mode (poll or event), then
// IdentityParams.
var IgnorableParams = append([]string{"completion"}, IdentityParams...)

// Key is a point's identity: the workload, transport, completion and size
// and the values of IdentityParams, in that order, in [Result.Param]'s
// text form (the slots past them stay empty).
type Key struct {
	Workload, Transport, Completion string
	SizeBytes                       int
	Params                          [nIdentity]string
}

// KeyOf returns a result's point identity.
func KeyOf(r *document.Result) Key {
	k := Key{Workload: r.Workload, Transport: r.Transport, Completion: r.Completion, SizeBytes: r.SizeBytes}
	for i, p := range IdentityParams {
		v := r.Param(p)
		if v == "" {
			cp, _ := catalog.LookupParam(p)
			v = cp.Absent
		}
		k.Params[i] = v
	}
	return k
}

// Param returns the value of one of IgnorableParams ("" when absent).
func (k Key) Param(name string) string {
	if name == "completion" {
		return k.Completion
	}
	if i := slices.Index(IdentityParams, name); i >= 0 {
		return k.Params[i]
	}
	return ""
}

// coarse is the key without its parameters.
func (k Key) coarse() Key {
	k.Params = [nIdentity]string{}
	return k
}

// without blanks the named parameters (of IgnorableParams).
func (k Key) without(names []string) Key {
	for _, n := range names {
		if n == "completion" {
			k.Completion = ""
		}
		if i := slices.Index(IdentityParams, n); i >= 0 {
			k.Params[i] = ""
		}
	}
	return k
}

// Sample is one run of a point, with where it came from.
type Sample struct {
	Doc    *document.Document
	Result *document.Result
	Run    *document.Run
}

// Point is one point of one side: every run of it in that side's
// documents.
type Point struct {
	Key Key
	// Latency is true for a latency point, false for bandwidth.
	Latency bool
	// TCP is true for a TCP baseline point.
	TCP bool
	// Results are the point's results, one per document holding it, in
	// the documents' order; Runs are all their runs in the same order.
	Results []*document.Result
	Docs    []*document.Document
	Runs    []Sample
	// Unclean counts the runs among Runs whose port counters say they were
	// not clean (a retransmission or an error); Dropped counts those left
	// out of Runs by [Options.CleanOnly].
	Unclean, Dropped int
	// Partial counts the runs among Runs that were cut short (kept by
	// [Options.AllowPartial]).
	Partial int
}

// Options choose which runs a side may hold.
type Options struct {
	// AllowPartial accepts runs cut short (status "partial"); by default
	// they are refused.
	AllowPartial bool
	// CleanOnly leaves out, point by point, the runs whose counters say
	// they were not clean ("clean": false), counting them in
	// [Point.Dropped]; a run that does not say is kept. A result some of
	// whose runs were left out is then held as one result per run kept,
	// of that run's figures ([cleanResults]), so that the charts and
	// tables drawn from the results' figures leave them out too. Without
	// it they are kept and counted in [Point.Unclean].
	CleanOnly bool
}

// Pool gathers the points of one side's documents: the runs of the same
// point in several documents pool together. Points keep the order in
// which they are first found. A run refused by opt is an error naming its
// file; an unclean run is counted, and left out with CleanOnly.
func Pool(docs []*document.Document, opt Options) ([]*Point, error) {
	var out []*Point
	byKey := map[Key]*Point{}
	for _, d := range docs {
		for _, r := range d.Results {
			if err := admit(d, r, opt); err != nil {
				return nil, err
			}
			k := KeyOf(r)
			p := byKey[k]
			if p == nil {
				p = &Point{Key: k, Latency: r.IsLatency(), TCP: r.IsTCP()}
				byKey[k] = p
				out = append(out, p)
			}
			kept, dropped := r.Runs, 0
			if opt.CleanOnly {
				kept = slices.DeleteFunc(slices.Clone(r.Runs), func(run *document.Run) bool { return unclean(r, run) })
				dropped = len(r.Runs) - len(kept)
			}
			p.Dropped += dropped
			rs := []*document.Result{r}
			if dropped > 0 {
				rs = cleanResults(r, kept)
			}
			for _, r := range rs {
				p.Results = append(p.Results, r)
				p.Docs = append(p.Docs, d)
				for _, run := range r.Runs {
					if unclean(r, run) {
						p.Unclean++
					}
					if run.Status == document.StatusPartial {
						p.Partial++
					}
					p.Runs = append(p.Runs, Sample{Doc: d, Result: r, Run: run})
				}
			}
		}
	}
	return out, nil
}

// cleanResults stands for a result some of whose runs were left out as
// unclean: one result per run kept, with the run's figures (the result's
// own merge every run went into); with none kept, the result without
// runs or figures, which keeps its parameters (the comparison's
// "differs") and draws nothing.
func cleanResults(r *document.Result, kept []*document.Run) []*document.Result {
	if len(kept) == 0 {
		c := *r
		c.Figures, c.Runs = document.Figures{}, nil
		return []*document.Result{&c}
	}
	out := make([]*document.Result, 0, len(kept))
	for _, run := range kept {
		c := *r
		c.Figures, c.Runs = run.Figures, []*document.Run{run}
		out = append(out, &c)
	}
	return out
}

// admit refuses a result holding a partial run (unless allowed).
func admit(d *document.Document, r *document.Result, opt Options) error {
	where := fmt.Sprintf("%s: results[%d] (%s)", d.Path, r.Index, Describe(KeyOf(r), nil))
	for _, run := range r.Runs {
		which := "its run"
		if r.RunsRecorded {
			which = fmt.Sprintf("run %d", run.Run)
		}
		if !opt.AllowPartial && run.Status == document.StatusPartial {
			why := ""
			if run.Reason != "" {
				why = " (" + run.Reason + ")"
			}
			return fmt.Errorf("%s: %s is partial%s: a run cut short is not compared; allow it with --allow-partial", where, which, why)
		}
	}
	// Whole runs, but fewer than --repeat asked for: an interrupted run.
	if !opt.AllowPartial && r.Status == document.StatusPartial {
		return fmt.Errorf("%s: partial (%s): a point cut short is not compared; allow it with --allow-partial", where, r.Reason)
	}
	return nil
}

// unclean says whether a run of r was not clean: its own clean flag, else
// the result's; a run that says nothing is not unclean.
func unclean(r *document.Result, run *document.Run) bool {
	clean := run.Clean
	if clean == nil {
		clean = r.Clean
	}
	return clean != nil && !*clean
}

// Describe names a point as the comparison's rows do: "write_lat RC poll
// 64 B", then every parameter off its usual value ("qps=4") and every one
// named in also ("tx_depth=128"), in IdentityParams' order; an offered
// rate reads "at 5000 ops/s", and no rate, named in also, "closed loop".
func Describe(k Key, also map[string]bool) string {
	parts := []string{k.Workload}
	if k.Transport != "" {
		parts = append(parts, k.Transport)
	}
	if k.Completion != "" {
		parts = append(parts, k.Completion)
	}
	parts = append(parts, display.Size(k.SizeBytes))
	return strings.Join(append(parts, paramTags(k, also)...), " ")
}

// paramTags are the name=value tags Describe appends.
func paramTags(k Key, also map[string]bool) []string {
	var tags []string
	for i, p := range IdentityParams {
		v := k.Params[i]
		cp, _ := catalog.LookupParam(p)
		if also[p] || (cp.Usual != nil && !slices.Contains(cp.Usual, v)) {
			if p == "rate" {
				tags = append(tags, rateTag(v))
				continue
			}
			if v == "" {
				v = "none"
			}
			tags = append(tags, p+"="+v)
		}
	}
	return tags
}

// Names names points as [Describe] does, adding the parameters that tell
// apart points of the same workload, transport, completion and size.
func Names(pts []*Point) []string {
	vary := varying(pts, nil)
	out := make([]string, len(pts))
	for i, p := range pts {
		out[i] = Describe(p.Key, vary[p.Key.coarse()])
	}
	return out
}

// rateTag names a point's offered rate: "at 5000 ops/s", or "closed loop".
func rateTag(v string) string {
	if v == "" || v == "0" {
		return "closed loop"
	}
	return "at " + v + " ops/s"
}

// Unmeasured says how many of the documents' results measured nothing
// (status insufficient: no operation completed, no figure), with the
// first one's reason, for a message that would otherwise say only that
// there is nothing to compare or draw; "" when none did.
func Unmeasured(docs []*document.Document) string {
	n, of, why := 0, 0, ""
	for _, d := range docs {
		for _, r := range d.Results {
			of++
			if r.Status == document.StatusInsufficient {
				if n == 0 {
					why = r.Reason
				}
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d results measured nothing (status insufficient: %s)", n, of, why)
}

// LeftOut says what --clean-only left out of the groups' points: the runs
// counted ([compare.LeftOutText]), then each point none of whose runs was
// left, named ("write_lat RC poll 64 B (label base): all 3 runs not
// clean, left out by --clean-only: not drawn"); none when no run was left
// out.
func LeftOut(groups []*Group) []string {
	total := 0
	var none []string
	for _, g := range groups {
		names := Names(g.Points)
		for i, p := range g.Points {
			total += p.Dropped
			if p.Dropped > 0 && len(p.Runs) == 0 {
				name := names[i]
				if len(groups) > 1 {
					name += " (" + sideName(g) + ")"
				}
				none = append(none, fmt.Sprintf("%s: all %d runs not clean, left out by --clean-only: not drawn", name, p.Dropped))
			}
		}
	}
	if total == 0 {
		return nil
	}
	return append([]string{compare.LeftOutText(total)}, none...)
}
