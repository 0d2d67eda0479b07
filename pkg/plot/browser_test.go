package plot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/plot/plottest"
)

// TestReportInBrowser opens the report from disk in headless Chromium:
// the page must load with no console error, fetch nothing but itself,
// lay out every chart and not be blank.
func TestReportInBrowser(t *testing.T) {
	bin := plottest.NeedChromium(t)
	r, charts := testReport(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTMLFile(context.Background(), path, r); err != nil {
		t.Fatal(err)
	}
	v := plottest.Open(t, bin, path)
	v.Check(t, charts)
	if *reviewDir != "" {
		os.WriteFile(filepath.Join(*reviewDir, "report_screenshot.png"), v.Shot, 0o644)
		os.WriteFile(filepath.Join(*reviewDir, "report.html"), mustRead(t, path), 0o644)
	}
}

// The browser check bites: a page that fetches an image (from a closed
// loopback port) and logs an error is caught on both counts.
func TestBrowserCheckSeesRequestsAndErrors(t *testing.T) {
	bin := plottest.NeedChromium(t)
	path := filepath.Join(t.TempDir(), "bad.html")
	page := `<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"><script>console.error("bad")</script></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	v := plottest.Open(t, bin, path)
	if !slices.Contains(v.Requests, "http://127.0.0.1:9/x.png") {
		t.Errorf("requests %v: the image fetch went unseen", v.Requests)
	}
	if !slices.Contains(v.Problems, "console error") {
		t.Errorf("problems %v: the console error went unseen", v.Problems)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
