package plot

import (
	"flag"
	"testing"
)

var reviewDir = flag.String("review", "", "write every chart of the fake data as SVG and PNG into this directory, to look at")

// reviewCharts builds every chart the package draws from the fake data.
func reviewCharts(t *testing.T) map[string]*Chart {
	t.Helper()
	out := map[string]*Chart{}
	add := func(name string, ch *Chart, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = ch
	}
	ch, err := LatencyVsSize("Latency by message size: RDMA verbs against TCP", latencySeries(suiteSizes), testCaption)
	add("latency_suite", ch, err)
	ch, err = LatencyVsSize("Latency sweep 2 B .. 8 MiB", latencySeries(sweepSizes()), testCaption)
	add("latency_sweep", ch, err)
	ch, err = RateVsSize("Bandwidth by message size", Bandwidth, rateSeries(suiteSizes, Bandwidth), testCaption)
	add("bandwidth_suite", ch, err)
	ch, err = RateVsSize("Bandwidth sweep 2 B .. 8 MiB", Bandwidth, rateSeries(sweepSizes(), Bandwidth), testCaption)
	add("bandwidth_sweep", ch, err)
	ch, err = RateVsSize("Message rate sweep", MessageRate, rateSeries(sweepSizes(), MessageRate), testCaption)
	add("msgrate_sweep", ch, err)
	ch, err = CPUPerGBVsSize("CPU cost per GB: RDMA against TCP", cpuSeries(sweepSizes()), testCaption)
	add("cpu_sweep", ch, err)
	return out
}

func TestReview(t *testing.T) {
	if *reviewDir == "" {
		t.Skip("no -review directory given")
	}
	for name, ch := range reviewCharts(t) {
		if _, _, err := Write(ch, *reviewDir, name); err != nil {
			t.Fatal(err)
		}
	}
}
