package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/plot/plottest"
)

var reviewShots = os.Getenv("RDMA_BENCH_REVIEW_DIR") // where to keep the screenshots, to look at

// TestReportInBrowser opens reports rdma-bench report wrote in headless
// Chromium (Debian's chromium; make test installs it and makes its
// absence a failure): each page loads with no console error, requests
// nothing but itself, lays out every chart and is not blank.
func TestReportInBrowser(t *testing.T) {
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		// make test's unit run on the host opens them, a missing browser a
		// failure there; under the VM's emulation a page takes a minute.
		t.Skip("the reports are opened by the unit tests on the host, not in the VM")
	}
	bin := plottest.NeedChromium(t)
	for _, c := range []struct {
		name   string
		charts int
		args   []string
	}{
		// A comparison: the 8 charts of both sides' documents (those of
		// make bench's suite), their 4 trends (base to new), the whiskers
		// and 4 spectra.
		{"comparison", 17, []string{fixtures + "slower.json", "--base", fixtures + "base.json"}},
		// The directory of every caveat (views_test.go): unclean, thin
		// and partial runs under two labels; its 8 charts and 4 trends.
		{"caveats", 12, []string{"--allow-partial", views + "base", views + "new"}},
		// A real document with a load curve.
		{"load", 3, []string{curveFixture}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report.html")
			if r := run(t, 60*time.Second, append([]string{"report", "-o", out}, c.args...)...); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			v := plottest.Open(t, bin, out)
			v.Check(t, c.charts)
			if reviewShots != "" {
				os.WriteFile(filepath.Join(reviewShots, "report_"+c.name+".png"), v.Shot, 0o644)
			}
		})
	}
}
