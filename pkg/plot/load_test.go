package plot

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// loadCurve is a latency-against-load curve that is flat until its knee
// and then takes off: p50 base, p99 three times it, p99.9 six times.
func loadCurve(name string, f Family, closed, knee float64, rates []float64) LoadCurve {
	c := LoadCurve{Name: name, Family: f, ClosedP50US: closed, KneeOPS: knee}
	for _, r := range rates {
		p50 := closed * (1.1 + 0.1*r/knee)
		if r >= knee {
			p50 *= math.Pow(r/knee*3, 2)
		}
		c.Points = append(c.Points, LoadPoint{OfferedOPS: r, P50US: p50, P99US: 3 * p50, P99_9US: 6 * p50})
	}
	return c
}

var loadRates = []float64{1000, 2000, 5000, 10000, 20000, 50000}

// manyRates are 1-2-5 steps from 1k to 1M ops/s: too many to label each.
var manyRates = []float64{1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6}

func loadChartCases() []chartCase {
	return []chartCase{
		{name: "load one curve", texts: []string{"Load", "offered load (operations/s)", "latency (µs)", "1k", "2k", "5k", "10k", "20k",
			"50k", "write_lat 64 B", "p50 (median)", "p99", "p99.9", "closed-loop p50: 4.100 µs", "knee: 20k ops/s"},
			chart: func() (*Chart, error) {
				return LatencyVsLoad("Load", []LoadCurve{loadCurve("write_lat 64 B", RDMA, 4.1, 20000, loadRates)}, testCaption)
			}},
		{name: "load RDMA and TCP", texts: []string{"write_lat", "tcp_lat", "closed-loop p50", "knee (first rate past it)"},
			chart: func() (*Chart, error) {
				return LatencyVsLoad("Load two", []LoadCurve{loadCurve("write_lat", RDMA, 4.1, 20000, loadRates),
					loadCurve("tcp_lat", TCP, 18, 10000, loadRates)}, testCaption)
			}},
		{name: "load many rates", texts: []string{"1k", "10k", "100k", "1M"},
			chart: func() (*Chart, error) {
				c := loadCurve("send_lat", RDMA, 5, 0, manyRates)
				c.KneeOPS = 0 // no knee: none drawn, none in the legend
				for i := range c.Points {
					c.Points[i].P50US = 5 * (1 + float64(i)/4)
					c.Points[i].P99US, c.Points[i].P99_9US = 15*(1+float64(i)/4), math.NaN()
				}
				return LatencyVsLoad("Load many", []LoadCurve{c}, testCaption) // no p99.9: not in the legend
			}},
	}
}

// svgPath is one <path> of an SVG: its points in user space (y down) and
// its style.
type svgPath struct {
	pts   [][2]float64
	style string
}

var pathCmdRE = regexp.MustCompile(`[ML]([-0-9.e]+),([-0-9.e]+)`)

// parsePaths returns the move-and-line paths of an SVG.
func parsePaths(t *testing.T, b []byte) []svgPath {
	t.Helper()
	var out []svgPath
	walkSVG(t, b, svgVisitor{start: func(name string, attr map[string]string, m affine) {
		if name != "path" {
			return
		}
		p := svgPath{style: attr["style"]}
		for _, c := range pathCmdRE.FindAllStringSubmatch(attr["d"], -1) {
			x, _ := strconv.ParseFloat(c[1], 64)
			y, _ := strconv.ParseFloat(c[2], 64)
			ax, ay := m.apply(x, y)
			p.pts = append(p.pts, [2]float64{ax, ay})
		}
		out = append(out, p)
	}})
	return out
}

// dashed returns the paths of two points with the given dash pattern,
// left out those shorter than 40 pt (legend samples).
func dashed(paths []svgPath, dashes string) []svgPath {
	var out []svgPath
	for _, p := range paths {
		if strings.Contains(p.style, "stroke-dasharray:"+dashes) && len(p.pts) == 2 &&
			math.Hypot(p.pts[1][0]-p.pts[0][0], p.pts[1][1]-p.pts[0][1]) > 40 {
			out = append(out, p)
		}
	}
	return out
}

// tickCentre is where a tick label's box has its centre, along x or y.
func tickCentre(t *testing.T, texts []svgText, label string, alongX bool) float64 {
	t.Helper()
	for _, tx := range texts {
		if strings.TrimSpace(tx.s) == label && tx.size == 10 {
			b := textBox(tx)
			if alongX {
				return (b.x0 + b.x1) / 2
			}
			return (b.y0 + b.y1) / 2
		}
	}
	t.Fatalf("no tick label %q", label)
	return 0
}

// TestLoadChartMarks reads the picture's reference lines back against
// its axes: the knee is a vertical dash-dotted line at the knee's rate
// tick, the closed-loop p50 a horizontal dotted line at its value on the
// log latency axis.
func TestLoadChartMarks(t *testing.T) {
	c := loadCurve("write_lat 64 B", RDMA, 4.1, 20000, loadRates)
	ch, err := LatencyVsLoad("Load", []LoadCurve{c}, testCaption)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ch.svgBytes()
	if err != nil {
		t.Fatal(err)
	}
	texts, _ := parseSVG(t, b)
	paths := parsePaths(t, b)
	knee := dashed(paths, "8,3,2,3")
	if len(knee) != 1 {
		t.Fatalf("%d knee lines, want 1", len(knee))
	}
	k := knee[0].pts
	if want := tickCentre(t, texts, "20k", true); k[0][0] != k[1][0] || math.Abs(k[0][0]-want) > 0.5 {
		t.Errorf("knee line from %v to %v: want a vertical line at x=%.2f, the 20k tick", k[0], k[1], want)
	}
	closed := dashed(paths, "1.5,3")
	if len(closed) != 1 {
		t.Fatalf("%d closed-loop lines, want 1", len(closed))
	}
	cl := closed[0].pts
	// The y axis is logarithmic: place the line between two labelled ticks.
	y10, y100 := tickCentre(t, texts, "10", false), tickCentre(t, texts, "100", false)
	got := 10 * math.Pow(10, (cl[0][1]-y10)/(y100-y10))
	if cl[0][1] != cl[1][1] || math.Abs(got/4.1-1) > 0.02 {
		t.Errorf("closed-loop line from %v to %v reads %.3f µs on the axis, want a horizontal line at 4.1", cl[0], cl[1], got)
	}
	// No knee, no closed loop: no such line and no such legend entry.
	c.KneeOPS, c.ClosedP50US = 0, math.NaN()
	if ch, err = LatencyVsLoad("Load", []LoadCurve{c}, testCaption); err != nil {
		t.Fatal(err)
	}
	if b, err = ch.svgBytes(); err != nil {
		t.Fatal(err)
	}
	texts, _ = parseSVG(t, b)
	if n := len(dashed(parsePaths(t, b), "8,3,2,3")) + len(dashed(parsePaths(t, b), "1.5,3")); n != 0 {
		t.Errorf("%d reference lines without a knee or a closed loop", n)
	}
	for s := range textSet(texts) {
		if strings.HasPrefix(s, "knee") || strings.HasPrefix(s, "closed-loop") {
			t.Errorf("legend says %q without a knee or a closed loop", s)
		}
	}
}

func TestLoadChartBadInput(t *testing.T) {
	good := loadCurve("write_lat", RDMA, 4, 20000, loadRates)
	for _, c := range []struct {
		want string
		mod  func(*LoadCurve)
	}{
		{`series "write_lat": offered rate: 0 ops/s: want a positive finite number`, func(c *LoadCurve) { c.Points[0].OfferedOPS = 0 }},
		{`p50 latency at 2k ops/s: NaN µs`, func(c *LoadCurve) { c.Points[1].P50US = math.NaN() }},
		{`p99.9 latency at 5k ops/s: -1 µs`, func(c *LoadCurve) { c.Points[2].P99_9US = -1 }},
		{`closed-loop p50 latency: 0 µs`, func(c *LoadCurve) { c.ClosedP50US = 0 }},
		{`knee: -5 ops/s (0 for none)`, func(c *LoadCurve) { c.KneeOPS = -5 }},
		{`curve "write_lat": no points`, func(c *LoadCurve) { c.Points = nil }},
		{`family "UDP"`, func(c *LoadCurve) { c.Family = "UDP" }},
	} {
		cv := good
		cv.Points = slices.Clone(good.Points)
		c.mod(&cv)
		_, err := LatencyVsLoad("Load", []LoadCurve{cv}, testCaption)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), `load chart "Load": `) {
			t.Errorf("got %v, want an error with %q", err, c.want)
		}
	}
	if _, err := LatencyVsLoad("Load", nil, testCaption); err == nil || !strings.Contains(err.Error(), "no series to draw") {
		t.Errorf("no curves: %v", err)
	}
}

// The legend names only the percentiles drawn.
func TestLoadChartLegendNamesWhatIsDrawn(t *testing.T) {
	ch, err := loadChartCases()[2].chart() // no p99.9, no knee
	if err != nil {
		t.Fatal(err)
	}
	b, err := ch.svgBytes()
	if err != nil {
		t.Fatal(err)
	}
	texts, _ := parseSVG(t, b)
	got := textSet(texts)
	if got["p99.9"] != 0 || got["p99"] != 1 || got["knee (first rate past it)"] != 0 {
		t.Errorf("legend: p99.9 %d times, p99 %d, knee %d; want 0, 1, 0", got["p99.9"], got["p99"], got["knee (first rate past it)"])
	}
}
