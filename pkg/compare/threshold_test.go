package compare

import (
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"reflect"
	"testing"
)

func TestParseThresholdsGood(t *testing.T) {
	got, err := ParseThresholds(" lat.p50>+5%, lat.p99 > +10.5% ,bw<-3%,cpu.gb>+0%")
	if err != nil {
		t.Fatal(err)
	}
	want := []Threshold{{metric.LatP50, 5}, {metric.LatP99, 10.5}, {metric.BW, 3}, {metric.CPUPerGB, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	var specs []string
	for _, th := range got {
		specs = append(specs, th.String())
	}
	if !reflect.DeepEqual(specs, []string{"lat.p50>+5%", "lat.p99>+10.5%", "bw<-3%", "cpu.gb>+0%"}) {
		t.Errorf("String: %q", specs)
	}
	if got[0].EdgePct() != 5 || got[2].EdgePct() != -3 {
		t.Errorf("edges %v, %v", got[0].EdgePct(), got[2].EdgePct())
	}
}

func TestDefaultThresholds(t *testing.T) {
	want := []Threshold{{metric.LatP50, 5}, {metric.LatP99, 10}, {metric.BW, 3}, {metric.MsgRate, 3}}
	if got := DefaultThresholds(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseThresholdsBad(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"", "empty threshold list: want items such as lat.p50>+5%,bw<-3%"},
		{"lat.p50>+5%,,bw<-3%", `threshold list "lat.p50>+5%,,bw<-3%": item 2 is empty`},
		{"lat.p50>+5%,", `threshold list "lat.p50>+5%,": item 2 is empty`},
		{"lat.p95>+5%", `threshold "lat.p95>+5%": unknown metric "lat.p95" (known: lat.p50, lat.p99, lat.p99_9, bw, msgrate, cpu.op, cpu.gb)`},
		{"lat.p50=5%", `threshold "lat.p50=5%": want METRIC>+N% or METRIC<-N%, such as lat.p50>+5% or bw<-3%`},
		{"lat.p50>+5", `threshold "lat.p50>+5": want a percentage such as +5%`},
		{"bw<-3", `threshold "bw<-3": want a percentage such as -3%`},
		{"lat.p50>5%", `threshold "lat.p50>5%": "5" is not a signed number: want a percentage such as +5%`},
		{"lat.p50>+five%", `threshold "lat.p50>+five%": "+five" is not a signed number: want a percentage such as +5%`},
		{"lat.p50>+1e1%", `threshold "lat.p50>+1e1%": "+1e1" is not a signed number: want a percentage such as +5%`},
		{"lat.p50>-5%", `threshold "lat.p50>-5%": lat.p50 is lower-is-better, so a regression is an increase: want lat.p50>+N%`},
		{"lat.p50<+5%", `threshold "lat.p50<+5%": lat.p50 is lower-is-better, so a regression is an increase: want lat.p50>+N%`},
		{"bw<+3%", `threshold "bw<+3%": bw is higher-is-better, so a regression is a decrease: want bw<-N%`},
		{"msgrate>+3%", `threshold "msgrate>+3%": msgrate is higher-is-better, so a regression is a decrease: want msgrate<-N%`},
		{"bw<-100%", `threshold "bw<-100%": a decrease of 100% or more cannot happen: want a limit below 100%`},
		{"lat.p50>+5%,lat.p50>+6%", `threshold "lat.p50>+6%": metric lat.p50 already has a threshold (lat.p50>+5%)`},
	}
	for _, c := range cases {
		got, err := ParseThresholds(c.spec)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseThresholds(%q) = %v, %v\nwant error %s", c.spec, got, err, c.want)
		}
	}
}

// DefaultThresholds returns the thresholds of [DefaultThresholdSpec].
func DefaultThresholds() []Threshold {
	th, err := ParseThresholds(DefaultThresholdSpec)
	if err != nil {
		panic(err) // a constant: TestDefaultThresholds names the fault
	}
	return th
}
