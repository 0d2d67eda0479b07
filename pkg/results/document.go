package results

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// LoadNoting reads the documents that paths name as [document.Each] does,
// one at a time, note told of each document of another kind left out: each is trimmed to what the analysis and its views
// read ([Keep]) before the next is read, so that memory grows with the
// figures kept, not with the documents' size. It stops when ctx ends,
// with ctx's cause.
func LoadNoting(ctx context.Context, note func(string), paths ...string) ([]*document.Document, error) {
	var docs []*document.Document
	shared := map[string]map[string]json.RawMessage{}
	err := document.Each(ctx, note, func(d *document.Document) error {
		Keep(d)
		for _, r := range d.Results {
			r.Params = share(shared, r.Params)
		}
		docs = append(docs, d)
		return nil
	}, paths...)
	return docs, err
}

// share returns the params of an earlier result equal to params, else
// keeps params for the next: the points of a suite repeated in many
// documents then hold one copy of their parameters, most of what a
// document read leaves after [Keep]. The analysis never changes params.
func share(shared map[string]map[string]json.RawMessage, params map[string]json.RawMessage) map[string]json.RawMessage {
	keys := slices.Sorted(maps.Keys(params))
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.Write(params[k])
		b.WriteByte(0)
	}
	if p, ok := shared[b.String()]; ok {
		return p
	}
	shared[b.String()] = params
	return params
}

// Keep drops from a document read what no view of this package reads: the
// port counters' per-side deltas (the verdict stays), the server's own
// figures, the open loops' service and lag histograms, and the runs'
// histograms of a result that holds its merged one. Most of a document's
// bytes are these.
func Keep(d *document.Document) {
	for _, r := range d.Results {
		if r.Counters != nil {
			r.Counters.Local, r.Counters.Remote = nil, nil
		}
		r.Server = nil
		if r.OpenLoop != nil {
			r.OpenLoop.ServiceHistogram, r.OpenLoop.LagHistogram = "", ""
		}
		if r.Histogram != "" {
			for _, run := range r.Runs {
				run.Histogram = ""
			}
		}
	}
}
