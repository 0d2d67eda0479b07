package results

import (
	"slices"
	"strconv"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// CaptionOf describes where and when documents were measured, for a
// chart's caption: device and port, firmware, host, date (the first
// started_at, or the first and last day), rdma-bench's version, and the
// labels, kernel and driver as extras. A field with several values lists
// them, a long list shortened (briefList): a picture has room for a few.
func CaptionOf(docs []*document.Document) plot.Caption {
	c := plot.Caption{
		Device: brief(docs, dev(func(v *document.Device) string {
			if v.Port == 0 {
				return v.Name
			}
			return v.Name + " port " + strconv.Itoa(v.Port)
		})),
		Firmware: brief(docs, dev(func(v *document.Device) string { return v.FirmwareVersion })),
		Host:     brief(docs, func(d *document.Document) string { return d.Host.Hostname }),
		Date:     dateRange(docs),
	}
	if v := brief(docs, func(d *document.Document) string { return d.Tool.Version }); v != "" {
		c.Tool = "rdma-bench " + v
	}
	for _, e := range []struct {
		key string
		get func(*document.Document) string
	}{
		{"label", func(d *document.Document) string { return d.Label }},
		{"kernel", func(d *document.Document) string { return d.Host.Kernel }},
		{"driver", dev(func(v *document.Device) string { return v.Driver })},
	} {
		if v := brief(docs, e.get); v != "" {
			c.Extra = append(c.Extra, [2]string{e.key, v})
		}
	}
	return c
}

// brief lists the distinct values of a field over documents, shortened.
func brief(docs []*document.Document, get func(*document.Document) string) string {
	return briefList(distinctValues(docs, get))
}

// dateRange is the first started_at of docs in RFC 3339, or the first
// and last day when they span several.
func dateRange(docs []*document.Document) string {
	var ts []time.Time
	for _, d := range docs {
		if !d.StartedAt.IsZero() {
			ts = append(ts, d.StartedAt.UTC())
		}
	}
	if len(ts) == 0 {
		return ""
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	first, last := ts[0], ts[len(ts)-1]
	if first.Format(time.DateOnly) == last.Format(time.DateOnly) {
		return first.Format(time.RFC3339)
	}
	return first.Format(time.DateOnly) + " to " + last.Format(time.DateOnly)
}

// Meta lists documents' metadata as key/value rows for a report: tool,
// commit, and metaFields' (labels, hosts, kernel, rdma-core, CPU, device
// and why it was chosen, driver, provider, firmware, link layer, MTU),
// dates and files; empty fields left out.
func Meta(docs []*document.Document) [][2]string {
	var out [][2]string
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	c := CaptionOf(docs)
	add("tool", c.Tool)
	add("commit", distinct(docs, func(d *document.Document) string { return d.Tool.Commit }))
	for _, f := range metaFields {
		if f.name != "rdma-bench" && f.name != "commit" {
			add(f.name, distinct(docs, f.get))
		}
	}
	add("date", c.Date)
	add("documents", distinct(docs, func(d *document.Document) string { return d.Path }))
	return out
}
