package results

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestTables: one row per document holding a point, figures as the table
// output prints them, "-" for null.
func TestTables(t *testing.T) {
	s := loadSides(t, "testdata/base")[0]
	var got []string
	for _, r := range LatencyTable(s).Rows {
		got = append(got, strings.Join(r, "|"))
	}
	want := []string{
		"write_lat RC poll 64 B (a.json)|3|1000|1.890|2.100|2.625|3.150|4.200|6.300|6.300|2.2050|0.2000|1.60|ok",
		"write_lat RC poll 64 B (b.json)|1|1000|2.070|2.300|2.875|3.450|4.600|6.900|6.900|2.4150|0.2000|1.80|ok",
		"tcp_lat TCP poll 64 B|3|1000|9.900|11.000|13.750|16.500|22.000|33.000|33.000|11.5500|0.2000|5.00|ok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("latency rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bw := BandwidthTable(s).Rows
	if len(bw) != 1 || strings.Join(bw[0], "|") != "write_bw RC poll 64 KiB|3|5000|10.010|9.100|0.0174|0.500|ok" {
		t.Errorf("bandwidth rows %q", bw)
	}
}

func TestSignificantDigits(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{2.58, "2.580"}, {10.0249, "10.02"}, {0.017166, "0.01717"}, {1234.5, "1234"}, {0, "0.000"}, {math.Inf(-1), "-Inf"}} {
		if got := sig(c.v); got != c.want {
			t.Errorf("sig(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := fmt.Sprint(pct(8), pValue(0.0004), pValue(0.1)); got != "+8.0%p<0.001p=0.100" {
		t.Errorf("got %q", got)
	}
}
