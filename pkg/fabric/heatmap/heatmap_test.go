package heatmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// doc is a sweep of n ranks on hosts host-0..host-(n-1), each pair's
// figures given by figs (nil: the pair failed).
func doc(n int, figs func(src, dst int) fabric.Figures) *fabric.Document {
	d := &fabric.Document{Tool: fabric.Tool{Name: "rdma-bench", Version: "v1.0"}, World: fabric.World{Size: n},
		Schedule:  fabric.ScheduleInfo{Pattern: fabric.PatternPairs, Pairs: n * (n - 1)},
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Status: fabric.StatusComplete}
	for r := range n {
		d.Members = append(d.Members, fabric.Member{Rank: r, Hostname: fmt.Sprintf("host-%d", r), Device: fmt.Sprintf("mlx5_%d", r%2), Port: 1})
	}
	for s := range n {
		for t := range n {
			if s == t {
				continue
			}
			o := fabric.PairOutcome{Src: s, Dst: t, Status: fabric.StatusOK, Figures: figs(s, t)}
			if o.Figures == nil {
				o.Status, o.Error = fabric.StatusFailed, "cable cut"
			}
			d.Pairs = append(d.Pairs, o)
		}
	}
	return d
}

func lat(src, dst int) fabric.Figures {
	if src == 2 && dst == 0 {
		return nil
	}
	return fabric.Figures{{Metric: "write_bw.bw_gbps", Value: 100 - float64(dst)}, {Metric: "write_lat.p50_us", Value: 2 + float64(src)}}
}

// TestGrid: rows measure, columns serve; NaN on the diagonal and for a
// failed pair.
func TestGrid(t *testing.T) {
	g := Grid(doc(3, lat).Matrix("write_lat.p50_us"))
	if !slices.Equal(g.Rows, []string{"0 host-0", "1 host-1", "2 host-2"}) || !slices.Equal(g.Cols, []string{"0", "1", "2"}) {
		t.Errorf("rows %q, columns %q", g.Rows, g.Cols)
	}
	for i, row := range g.Values {
		for j, v := range row {
			want := 2 + float64(i)
			if i == j || (i == 2 && j == 0) {
				want = math.NaN()
			}
			if v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
				t.Errorf("cell %d,%d: %v, want %v", i, j, v, want)
			}
		}
	}
}

func TestCaption(t *testing.T) {
	c := Caption(doc(3, lat))
	if c.Device != "mlx5_0, mlx5_1" || c.Host != "host-0, host-1, host-2" || c.Date != "2025-01-02T03:04:05Z" || c.Tool != "rdma-bench v1.0" {
		t.Errorf("caption %+v", c)
	}
	d := doc(5, lat)
	d.Status, d.Reason = fabric.StatusPartial, "interrupted"
	c = Caption(d)
	if c.Host != "5 hosts" || !slices.Contains(c.Extra, [2]string{"status", "PARTIAL: interrupted"}) {
		t.Errorf("caption of a partial sweep of 5: %+v", c)
	}
}

// TestCharts: a heat map per metric, named after it; a metric that cannot
// be drawn is left out with a note.
func TestCharts(t *testing.T) {
	var notes bytes.Buffer
	charts := Charts(doc(3, lat), &notes)
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
	}
	if want := []string{"fabric-write_bw-bw_gbps", "fabric-write_lat-p50_us"}; !slices.Equal(names, want) || notes.Len() > 0 {
		t.Errorf("charts %q (notes %q), want %q", names, notes.String(), want)
	}
	inf := doc(2, func(src, dst int) fabric.Figures {
		return fabric.Figures{{Metric: "write_lat.p50_us", Value: math.Inf(1)}}
	})
	if charts := Charts(inf, &notes); len(charts) != 0 || !strings.HasPrefix(notes.String(), "rdma-bench fabric: note: no heat map of write_lat.p50_us: ") {
		t.Errorf("%d charts, notes %q", len(charts), notes.String())
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir string
		ok  bool
	}{{dir, true}, {filepath.Join(dir, "new"), true}, {"", true}, {file, false}} {
		if err := CheckDir(c.dir); (err == nil) != c.ok {
			t.Errorf("%q: %v", c.dir, err)
		}
	}
}

// TestChartsMarkCaveats: the heat maps carry the matrices' marks; an
// unclean cell is outlined with a legend entry, and the caption ends with
// the table's footnotes.
func TestChartsMarkCaveats(t *testing.T) {
	d := doc(3, lat)
	for i := range d.Pairs {
		p := &d.Pairs[i]
		bwClean := p.Src != 0 || p.Dst != 1
		p.Result = json.RawMessage(fmt.Sprintf(`{"results":[{"workload":"write_lat","samples":%d},`+
			`{"workload":"write_bw","counters":{"clean":%v,"verdict":"not clean: packet_seq_err +3 packets"}}]}`,
			map[bool]int{true: 1, false: 5000}[p.Src == 1], bwClean))
	}
	svgs := map[string]string{}
	for _, c := range Charts(d, io.Discard) {
		var b bytes.Buffer
		if err := c.Chart.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		svgs[c.Name] = b.String()
	}
	bw, lat := svgs["fabric-write_bw-bw_gbps"], svgs["fabric-write_lat-p50_us"]
	for _, want := range []string{">99.0 " + display.UncleanMark + "<", ">" + display.UncleanLegend + "<", ">" + display.UncleanMark + " " + display.UncleanWhat + ": the device"} {
		if !strings.Contains(bw, want) {
			t.Errorf("write_bw heat map lacks %q", want)
		}
	}
	if strings.Contains(bw, display.ThinMark+"<") {
		t.Error("write_bw heat map: a thin mark on a bandwidth")
	}
	if n := strings.Count(lat, ">3.00"+display.ThinMark+"<"); n != 2 {
		t.Errorf("write_lat heat map: %d cells of rank 1 marked thin, want 2", n)
	}
	if !strings.Contains(lat, ">"+display.ThinMark+" a percentile") || strings.Contains(lat, display.UncleanWhat) {
		t.Error("write_lat heat map: want the thin footnote and no unclean one")
	}
}
