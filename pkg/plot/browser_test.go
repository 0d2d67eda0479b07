package plot

import (
	"bytes"
	"context"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds a Chromium binary, as Debian's chromium package installs it.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// browserView is what headless Chromium saw of a page.
type browserView struct {
	requests, problems []string
	widths             []float64 // of each figure's <svg>, in CSS pixels
	shot               []byte    // a PNG of the whole page
}

// needChromium returns the browser's path, or skips the test (fails it
// when RDMA_BENCH_REQUIRE_BROWSER=1) when there is none.
func needChromium(t *testing.T) string {
	t.Helper()
	bin := chromium()
	if bin == "" {
		if os.Getenv("RDMA_BENCH_REQUIRE_BROWSER") == "1" {
			t.Fatal("no chromium binary found and RDMA_BENCH_REQUIRE_BROWSER=1: install Debian's chromium package")
		}
		t.Skip("no chromium binary found (install Debian's chromium package; RDMA_BENCH_REQUIRE_BROWSER=1 makes this a failure)")
	}
	return bin
}

// openInBrowser opens the file at path in headless Chromium, driven
// through the DevTools protocol, and records every request, every console
// or log error and warning, the charts' widths and a screenshot.
func openInBrowser(t *testing.T, bin, path string) browserView {
	t.Helper()
	pageURL := (&url.URL{Scheme: "file", Path: path}).String()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	)
	t.Cleanup(acancel)
	var mu sync.Mutex
	var v browserView
	// The listener sees every event of the tab from its start; chromedp
	// enables the network and log domains itself.
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			v.requests = append(v.requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				v.problems = append(v.problems, "console "+string(ev.Type))
			}
		case *runtime.EventExceptionThrown:
			v.problems = append(v.problems, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				v.problems = append(v.problems, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	}
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx, chromedp.Navigate(pageURL), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatalf("opening %s in %s: %v", path, bin, err)
	}
	widths, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](
		`Array.from(document.querySelectorAll("figure > svg")).map(s => s.getBoundingClientRect().width)`))
	if err != nil {
		t.Fatalf("measuring the charts: %v", err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	bcancel() // close the browser so that no event comes in late
	mu.Lock()
	defer mu.Unlock()
	v.widths, v.shot = widths, shot
	for i, u := range v.requests {
		if u == pageURL {
			v.requests[i] = "self"
		}
	}
	return v
}

// TestReportInBrowser opens the report from disk in headless Chromium:
// the page must load with no console error, fetch nothing but itself,
// lay out every chart and not be blank.
func TestReportInBrowser(t *testing.T) {
	bin := needChromium(t)
	r, charts := testReport(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTMLFile(path, r); err != nil {
		t.Fatal(err)
	}
	v := openInBrowser(t, bin, path)
	for _, p := range v.problems {
		t.Errorf("browser reported %s", p)
	}
	for _, u := range v.requests {
		if u != "self" {
			t.Errorf("page requested %s; want nothing but the page itself", u)
		}
	}
	if len(v.requests) == 0 {
		t.Error("saw no request at all: the network listener is not working")
	}
	if len(v.widths) != charts {
		t.Errorf("%d charts laid out, want %d", len(v.widths), charts)
	}
	for i, w := range v.widths {
		if w < 300 {
			t.Errorf("chart %d is %.0f px wide: not laid out", i+1, w)
		}
	}
	img, err := png.Decode(bytes.NewReader(v.shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if n := colours(img); n < 10 {
		t.Errorf("screenshot has %d colours: blank", n)
	}
	if *reviewDir != "" {
		os.WriteFile(filepath.Join(*reviewDir, "report_screenshot.png"), v.shot, 0o644)
		os.WriteFile(filepath.Join(*reviewDir, "report.html"), mustRead(t, path), 0o644)
	}
}

// The browser check bites: a page that fetches an image (from a closed
// loopback port) and logs an error is caught on both counts.
func TestBrowserCheckSeesRequestsAndErrors(t *testing.T) {
	bin := needChromium(t)
	path := filepath.Join(t.TempDir(), "bad.html")
	page := `<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"><script>console.error("bad")</script></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	v := openInBrowser(t, bin, path)
	if !slices.Contains(v.requests, "http://127.0.0.1:9/x.png") {
		t.Errorf("requests %v: the image fetch went unseen", v.requests)
	}
	if !slices.Contains(v.problems, "console error") {
		t.Errorf("problems %v: the console error went unseen", v.problems)
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
