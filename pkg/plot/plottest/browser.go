// Package plottest opens rdma-bench's HTML reports in headless Chromium
// for tests, as net/http/httptest serves HTTP for them: what the page
// requested, what it logged, how wide its charts came out and a
// screenshot.
//
// The browser is Debian's chromium package (make test installs it); a test
// without one is skipped, or fails when RDMA_BENCH_REQUIRE_BROWSER=1.
package plottest

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium returns the path of a Chromium binary, as Debian's chromium
// package installs it, or "" when there is none.
func Chromium() string {
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

// NeedChromium returns the browser's path, or skips the test (fails it
// when RDMA_BENCH_REQUIRE_BROWSER=1) when there is none.
func NeedChromium(t testing.TB) string {
	t.Helper()
	bin := Chromium()
	if bin == "" {
		if os.Getenv("RDMA_BENCH_REQUIRE_BROWSER") == "1" {
			t.Fatal("no chromium binary found and RDMA_BENCH_REQUIRE_BROWSER=1: install Debian's chromium package (scripts/browser.sh)")
		}
		t.Skip("no chromium binary found (install Debian's chromium package; RDMA_BENCH_REQUIRE_BROWSER=1 makes this a failure)")
	}
	return bin
}

// View is what headless Chromium saw of a page.
type View struct {
	// Requests are the URLs the page requested, "self" for the page.
	Requests []string
	// Problems are the console and log errors and warnings, and the
	// uncaught exceptions.
	Problems []string
	// Widths are the widths of the page's figure > svg elements, in CSS
	// pixels.
	Widths []float64
	// Shot is a PNG screenshot of the whole page.
	Shot []byte
}

// Open opens the file at path in headless Chromium (bin), driven through
// the DevTools protocol, in a window 1100 pixels wide, and records every
// request, every console or log error and warning, the charts' widths
// and a screenshot. The browser is closed when it returns.
func Open(t testing.TB, bin, path string) View {
	t.Helper()
	pageURL := (&url.URL{Scheme: "file", Path: path}).String()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
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
	defer acancel()
	var mu sync.Mutex
	var v View
	// The listener sees every event of the tab from its start; chromedp
	// enables the network and log domains itself.
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			v.Requests = append(v.Requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				v.Problems = append(v.Problems, "console "+string(ev.Type))
			}
		case *runtime.EventExceptionThrown:
			v.Problems = append(v.Problems, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				v.Problems = append(v.Problems, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	}
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	defer bcancel()
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
	v.Widths, v.Shot = widths, shot
	for i, u := range v.Requests {
		if u == pageURL {
			v.Requests[i] = "self"
		}
	}
	return v
}

// Check fails t for every problem the page logged, every request for
// anything but the page itself, a page that requested nothing at all
// (the listener would be broken), fewer or more than charts laid-out
// charts (each at least 300 pixels wide), and a screenshot of fewer than
// 10 colours (blank). It returns the decoded screenshot.
func (v View) Check(t testing.TB, charts int) image.Image {
	t.Helper()
	for _, p := range v.Problems {
		t.Errorf("browser reported %s", p)
	}
	for _, u := range v.Requests {
		if u != "self" {
			t.Errorf("page requested %s; want nothing but the page itself", u)
		}
	}
	if len(v.Requests) == 0 {
		t.Error("saw no request at all: the network listener is not working")
	}
	if len(v.Widths) != charts {
		t.Errorf("%d charts laid out, want %d", len(v.Widths), charts)
	}
	for i, w := range v.Widths {
		if w < 300 {
			t.Errorf("chart %d is %.0f px wide: not laid out", i+1, w)
		}
	}
	img, err := png.Decode(bytes.NewReader(v.Shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if n := Colours(img); n < 10 {
		t.Errorf("screenshot has %d colours: blank", n)
	}
	return img
}

// Colours counts an image's distinct colours (every second pixel of
// every second row), up to 1000.
func Colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}
