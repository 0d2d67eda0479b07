package plot

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// WriteHTML writes r to w as WriteHTMLFile writes it to a file: the
// tests read the HTML from memory.
func WriteHTML(w io.Writer, r Report) error {
	b, err := renderHTML(context.Background(), r)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing report %q: %w", r.Title, err)
	}
	return nil
}

const hostile = `<script>alert("x")</script> & "quotes"`

// testReport is a report of every chart type with a hostile string in
// each kind of text.
func testReport(t *testing.T) (Report, int) {
	t.Helper()
	all := reviewCharts(t)
	order := []string{"latency_suite", "bandwidth_suite", "cpu_sweep", "spectrum_rdma_tcp",
		"comparison_40", "trend_firmware", "matrix_4"}
	r := Report{
		Title: "rdma-bench suite " + hostile,
		Meta:  [][2]string{{"device", "rxe0"}, {"firmware " + hostile, "n/a"}, {"date", "2025-03-14T10:22:05Z"}},
	}
	n := 0
	for i, name := range order {
		s := Section{Title: name, Charts: []*Chart{all[name]}}
		if i == 0 {
			s.Title = "Latency " + hostile
			s.Notes = []string{"Note " + hostile, "soft-RoCE numbers are a CPU benchmark, not a NIC's."}
			s.Tables = []Table{{
				Header: []string{"size", "write_lat p50 (µs)", "tcp_lat p50 (µs)", "ratio " + hostile},
				Rows:   [][]string{{"64", "4.1", "18.0", "4.4x"}, {"4K", "5.8", "21.7", "-3.2%"}, {hostile, "n/a", "", ""}},
			}}
		}
		r.Sections = append(r.Sections, s)
		n++
	}
	return r, n
}

func renderReport(t *testing.T) ([]byte, int) {
	t.Helper()
	r, n := testReport(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), n
}

// TestReportIsSelfContained parses the page: no script, nothing loaded
// from elsewhere, every chart an inline <svg>, all text escaped.
func TestReportIsSelfContained(t *testing.T) {
	b, charts := renderReport(t)
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var svgs, numeric int
	var texts []string
	var walk func(n *html.Node, inSVG bool)
	walk = func(n *html.Node, inSVG bool) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "iframe", "object", "embed", "img", "link", "base", "form", "audio", "video", "source":
				t.Errorf("page has a <%s> element", n.Data)
			case "svg":
				if !inSVG {
					svgs++
				}
				inSVG = true
			}
			for _, a := range n.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if a.Key == "xmlns" || a.Namespace == "xmlns" || (n.Data == "svg" && a.Key == "xlink") {
					continue // a namespace name, never fetched
				}
				switch {
				case strings.HasPrefix(a.Key, "on"):
					t.Errorf("<%s> has an event handler %s", n.Data, a.Key)
				case a.Key == "src" || a.Key == "href" || a.Key == "xlink:href" || a.Key == "action":
					if !strings.HasPrefix(v, "#") {
						t.Errorf("<%s %s=%q> points outside the page", n.Data, a.Key, a.Val)
					}
				case a.Key == "class" && v == "num":
					numeric++
				}
				if strings.Contains(v, "url(") || strings.Contains(v, "http:") || strings.Contains(v, "https:") {
					t.Errorf("<%s %s=%q> may load something", n.Data, a.Key, a.Val)
				}
			}
			if n.Data == "style" && n.FirstChild != nil {
				css := n.FirstChild.Data
				if strings.Contains(css, "@import") || strings.Contains(css, "url(") || strings.Contains(css, "//") {
					t.Errorf("inline CSS may load something: %q", css)
				}
			}
		}
		if n.Type == html.TextNode {
			texts = append(texts, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inSVG)
		}
	}
	walk(doc, false)
	if svgs != charts {
		t.Errorf("%d inline <svg>, want %d (one per chart)", svgs, charts)
	}
	if numeric != 7 { // 64, 4.1, 18.0, 4.4x, 5.8, 21.7, -3.2%; not 4K, n/a or empty
		t.Errorf("%d cells right-aligned as numbers, want 7", numeric)
	}
	joined := strings.Join(texts, "\n")
	for _, want := range []string{"rdma-bench suite " + hostile, "Latency " + hostile, "Note " + hostile, "firmware " + hostile, "ratio " + hostile} {
		if !strings.Contains(joined, want) {
			t.Errorf("text %q is not on the page as text", want)
		}
	}
	if bytes.Contains(b, []byte(`<script>alert`)) {
		t.Error("a hostile string went into the page unescaped")
	}
}

func TestWriteHTMLFile(t *testing.T) {
	r, _ := testReport(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLFile(context.Background(), path, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</html>")) {
		t.Error("report file is not one whole page")
	}
	if got := names(t, filepath.Dir(path)); len(got) != 1 {
		t.Errorf("directory holds %v, want just report.html", got)
	}
	if err := WriteHTMLFile(context.Background(), filepath.Join(path, "x.html"), r); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("writing under a file: error %v, want one saying not a directory", err)
	}
	if err := WriteHTML(&bytes.Buffer{}, Report{Sections: []Section{{Charts: []*Chart{nil}}}}); err == nil {
		t.Error("a nil chart went into a report")
	}
}
