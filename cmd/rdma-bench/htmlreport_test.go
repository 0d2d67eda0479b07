package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"golang.org/x/net/html"
)

// page is what a test reads from a report: its scripts, its figures and
// the inline SVG in each, its table headers and its text.
type page struct {
	scripts, figures, svgs, outsideSVG int
	headers, captions                  []string
	text                               string
}

func readPage(t *testing.T, path string) page {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var p page
	var text strings.Builder
	var walk func(n *html.Node, inFigure bool)
	walk = func(n *html.Node, inFigure bool) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script":
				p.scripts++
			case "figure":
				p.figures++
				svgs := 0
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && c.Data == "svg" {
						svgs++
					}
				}
				if svgs != 1 {
					t.Errorf("a figure holds %d svg elements, want 1", svgs)
				}
				inFigure = true
			case "svg":
				if inFigure && n.Parent.Data == "figure" {
					p.svgs++
				} else if !inFigure {
					p.outsideSVG++
				}
			case "th":
				if n.FirstChild != nil {
					p.headers = append(p.headers, n.FirstChild.Data)
				}
			case "caption":
				if n.FirstChild != nil {
					p.captions = append(p.captions, n.FirstChild.Data)
				}
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") || (a.Key == "src" || a.Key == "href") && strings.Contains(a.Val, "//") {
					t.Errorf("<%s %s=%q>: a script handler or a remote resource", n.Data, a.Key, a.Val)
				}
			}
		}
		if n.Type == html.TextNode {
			text.WriteString(n.Data + " ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inFigure)
		}
	}
	walk(doc, false)
	p.text = text.String()
	return p
}

// TestReport: one self-contained HTML file: metadata, each label's tables,
// one inline SVG per chart, no script.
func TestReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	r := runHere(t, 60*time.Second, "report", fixtures+"base.json", fixtures+"slower.json", "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := readPage(t, out)
	if p.scripts != 0 || p.outsideSVG != 0 {
		t.Errorf("%d scripts, %d svg outside figures; want none", p.scripts, p.outsideSVG)
	}
	if p.figures != len(plotCharts) || p.svgs != len(plotCharts) {
		t.Errorf("%d figures with %d inline svg, want one per chart: %d", p.figures, p.svgs, len(plotCharts))
	}
	for _, w := range []string{"t_typical(p50)[usec]", "t_p99.9[usec]", "BW average[Gb/s]", "MsgRate[Mpps]", "cpu/GB[s]"} {
		if !strings.Contains(strings.Join(p.headers, "|"), w) {
			t.Errorf("no table header %q in %q", w, p.headers)
		}
	}
	for _, w := range []string{"20.31.1014, 20.35.2000", "label base: testdata/compare/base.json", "label candidate: testdata/compare/slower.json",
		"write_lat RC poll 64 B", "2.207", "Trend across labels", display.LatencyMeaning} {
		if !strings.Contains(p.text, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	// Each label's latency and bandwidth table is captioned by its label.
	if want := []string{"label base", "label candidate", "label base", "label candidate"}; !slices.Equal(p.captions, want) {
		t.Errorf("table captions %q, want %q", p.captions, want)
	}
}

// TestReportWithBase: --base adds the comparison: the gate, what differs,
// the verdicts and the whiskers and spectra. The report is written even
// when the gate fails: it is not a gate.
func TestReportWithBase(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	r := runHere(t, 60*time.Second, "report", fixtures+"slower.json", "--base", fixtures+"base.json", "-o", out, "--session-noise", "0")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := readPage(t, out)
	// Both sides' 8 charts, their 4 trends (base to new), then the
	// whiskers and 4 base-against-new spectra.
	if p.scripts != 0 || p.figures != 17 || p.svgs != 17 {
		t.Errorf("%d scripts, %d figures, %d svg; want 0, 17, 17", p.scripts, p.figures, p.svgs)
	}
	if want := []string{"label base", "label candidate", "label base", "label candidate"}; !slices.Equal(p.captions, want) {
		t.Errorf("table captions %q, want %q", p.captions, want)
	}
	for _, w := range []string{"gate fail (exit 1)", "Comparison against the base", "base median [CI] n", "+10.1% [+9.9%, +10.3%]",
		"slower", "fail (lat.p50>+5%)", "whole interval beyond threshold", "firmware", display.LatencyMeaning} {
		if !strings.Contains(p.text, w) {
			t.Errorf("report lacks %q", w)
		}
	}
}

// TestReportBadInput: exit 2 and no file written.
func TestReportBadInput(t *testing.T) {
	for _, c := range []struct {
		want string
		args []string
	}{
		{"-o " + "/nonexistent/dir/r.html: directory /nonexistent/dir does not exist", []string{fixtures + "base.json", "-o", "/nonexistent/dir/r.html"}},
		{`--base: testdata/compare/notrdma.json: not an rdma-bench document`, []string{fixtures + "slower.json", "--base", fixtures + "notrdma.json"}},
		{"write_bw RC poll 64 KiB: qps is 1 in the base", []string{fixtures + "qps4.json", "--base", fixtures + "base.json"}},
		{"schema_version 3 is newer", []string{fixtures + "schema3.json"}},
		{"name the documents to report", nil},
	} {
		dir := t.TempDir()
		args := append([]string{"report", "-o", filepath.Join(dir, "r.html")}, c.args...)
		r := runHere(t, 30*time.Second, args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("report %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		assertEmpty(t, dir)
	}
}
