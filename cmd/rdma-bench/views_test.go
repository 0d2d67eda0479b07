package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// views is one saved directory holding every caveat a document can
// carry: base/ (label base) against new/ (label candidate), whose runs are
// in part not clean (unclean.json), cut short (partial-thin.json's
// write_lat 64 B) and of too few samples for their tail percentiles
// (partial-thin.json's write_lat 4 KiB, 50 samples a run); a gate
// document with a failed row, an undecided one and unclean runs; a fabric
// document whose write_bw pairs are all unclean and write_lat p99 thin.
const views = "testdata/views/"

// TestOfflineEveryView walks every offline view of the one directory and
// checks that each shows each caveat its documents hold: compare's four
// formats (the table against a golden file), plot's charts, the HTML
// report alone and against its base, and the gate's and the fabric's
// documents in report and plot.
func TestOfflineEveryView(t *testing.T) {
	dir := t.TempDir()
	base, newer := views+"base", views+"new"
	unclean, thin, partial := "2 unclean", "thin*", "1 partial"

	t.Run("compare", func(t *testing.T) {
		for _, c := range []struct {
			format string
			want   []string
		}{
			{"table", []string{unclean, thin, partial, "not clean, pooled", "cut short (partial"}},
			{"markdown", []string{unclean, "thin\\*", partial, "not clean, pooled", "cut short (partial"}},
			{"junit", []string{unclean, thin, partial, "not clean, pooled", "cut short (partial"}},
			{"json", []string{`"unclean": 2`, `"thin_runs": 3`, `"partial_runs": 1`}},
		} {
			out := filepath.Join(dir, "compare."+c.format)
			r := runHere(t, time.Minute, "compare", "--session-noise", "0", "--allow-partial", base, newer, "-o", c.format, "--output-file", out)
			b, err := os.ReadFile(out)
			if r.code != 0 || err != nil {
				t.Fatalf("-o %s: exit %d, %v: %s", c.format, r.code, err, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("-o %s lacks %q", c.format, w)
				}
			}
			if c.format == "table" {
				golden(t, "../views/compare.table.golden", string(b))
			}
		}
	})

	t.Run("plot", func(t *testing.T) {
		charts := filepath.Join(dir, "charts")
		if r := runHere(t, time.Minute, "plot", "--allow-partial", base, newer, "--dir", charts); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		lat := svgTexts(t, filepath.Join(charts, "latency_vs_size.svg"))
		for _, w := range []string{display.UncleanLegend, display.ThinLegend, "base", "candidate"} {
			if !hasText(lat, w) {
				t.Errorf("latency_vs_size lacks %q: %q", w, lat)
			}
		}
	})

	t.Run("report", func(t *testing.T) {
		out := filepath.Join(dir, "report.html")
		if r := runHere(t, time.Minute, "report", "--allow-partial", base, newer, "-o", out); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		p := readPage(t, out)
		for _, w := range []string{display.UncleanNote, display.ThinNote, "partial: run 3: interrupted", "t_p99.9[usec]", display.LatencyMeaning} {
			if !strings.Contains(p.text, w) {
				t.Errorf("report lacks %q", w)
			}
		}
		if strings.Join(p.captions, "|") != "label base|label candidate|label base|label candidate" {
			t.Errorf("captions %q, want each label's tables captioned", p.captions)
		}
	})

	t.Run("report against its base", func(t *testing.T) {
		out := filepath.Join(dir, "compared.html")
		if r := runHere(t, time.Minute, "report", "--allow-partial", "--session-noise", "0", newer, "--base", base, "-o", out); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		p := readPage(t, out)
		for _, w := range []string{display.UncleanNote, display.ThinNote, unclean, partial, "cut short (partial", "Comparison against the base"} {
			if !strings.Contains(p.text, w) {
				t.Errorf("report --base lacks %q", w)
			}
		}
	})

	t.Run("gate", func(t *testing.T) {
		out := filepath.Join(dir, "gate.html")
		if r := runHere(t, time.Minute, "report", views+"gate.json", "-o", out); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if p := readPage(t, out); !strings.Contains(p.text, "3 of 24 runs not clean") || !strings.Contains(p.text, "undecided after 12 pairs") {
			t.Errorf("gate report lacks its caveats:\n%s", p.text)
		}
		charts := filepath.Join(dir, "gate")
		if r := runHere(t, time.Minute, "plot", views+"gate.json", "--dir", charts); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if g := svgTexts(t, filepath.Join(charts, "gate.svg")); !hasText(g, display.UncleanLegend) {
			t.Errorf("gate chart lacks %q: %q", display.UncleanLegend, g)
		}
	})

	t.Run("fabric", func(t *testing.T) {
		out := filepath.Join(dir, "fabric.html")
		if r := runHere(t, time.Minute, "report", views+"fabric.json", "-o", out); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if p := readPage(t, out); !strings.Contains(p.text, display.UncleanNote) || !strings.Contains(p.text, display.ThinNote) ||
			!strings.Contains(p.text, "6 of 6 write_bw pairs not clean") {
			t.Errorf("fabric report lacks its caveats:\n%s", p.text)
		}
		charts := filepath.Join(dir, "fabric")
		if r := runHere(t, time.Minute, "plot", views+"fabric.json", "--dir", charts); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if bw := svgTexts(t, filepath.Join(charts, "fabric-write_bw-bw_gbps.svg")); !hasText(bw, display.UncleanLegend) {
			t.Errorf("fabric heat map lacks %q", display.UncleanLegend)
		}
		if p99 := svgTexts(t, filepath.Join(charts, "fabric-write_lat-p99_us.svg")); !hasText(p99, display.ThinMark+" a percentile") {
			t.Errorf("fabric p99 heat map lacks the thin note")
		}
	})
}
