package analysis

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// names lists fs's flags in the order they were added.
func names(fs *pflag.FlagSet) string {
	var n []string
	fs.VisitAll(func(f *pflag.Flag) { n = append(n, f.Name) })
	return strings.Join(n, " ")
}

func newFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SortFlags = false
	return fs
}

func TestCompareFlagsRegister(t *testing.T) {
	fs := newFlagSet()
	var f CompareFlags
	f.Register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	want := CompareFlags{CompareOptions: CompareOptions{FailOn: compare.DefaultThresholdSpec, Format: "table", SessionGap: results.DefaultSessionGap}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("defaults %+v, want %+v", f, want)
	}
	if got := names(fs); got != "fail-on strict output output-file ignore-param allow-partial clean-only metrics plot base-label label session-noise session-gap" {
		t.Errorf("flags %s", got)
	}
	if err := fs.Parse([]string{"-o", "json", "--plot", "d", "--output-file", "f", "--ignore-param", "mtu", "--ignore-param", "odp", "--strict", "--label", "B", "--session-noise", "3%"}); err != nil {
		t.Fatal(err)
	}
	if f.Format != "json" || f.PlotDir != "d" || f.OutFile != "f" || len(f.Ignore) != 2 || !f.Strict || f.Label != "B" ||
		f.SessionNoisePct == nil || *f.SessionNoisePct != 3 {
		t.Errorf("parsed %+v", f)
	}
}

func TestReportOptionsRegister(t *testing.T) {
	fs := newFlagSet()
	var o ReportOptions
	o.Register(fs)
	if err := fs.Parse([]string{"--metric", "bw", "--labels", "a,b", "--clean-only"}); err != nil {
		t.Fatal(err)
	}
	want := ReportOptions{Title: "rdma-bench report", FailOn: compare.DefaultThresholdSpec,
		Charts: ChartOptions{Metric: "bw", Labels: "a,b", CleanOnly: true}}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("got %+v, want %+v", o, want)
	}
	if got := names(fs); got != "title base fail-on ignore-param session-noise metric labels allow-partial clean-only" {
		t.Errorf("flags %s", got)
	}
}
