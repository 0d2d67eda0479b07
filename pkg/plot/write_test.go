package plot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Write writes chart as dir/baseName.svg and dir/baseName.png, into a
// directory that must exist: the tests' WriteAll of one chart. Both
// pictures are rendered in memory first and each file is written as
// package outfile does, so a reader never sees a partial file and an
// existing file is only ever replaced by a complete one. On error no new
// file, temporary or final, is left behind.
func Write(chart *Chart, dir, baseName string) (svgPath, pngPath string, err error) {
	if fi, err := os.Stat(dir); err != nil {
		return "", "", fmt.Errorf("chart directory: %w", err)
	} else if !fi.IsDir() {
		return "", "", fmt.Errorf("chart directory %s: not a directory", dir)
	}
	files, err := renderFiles(context.Background(), chart, dir, baseName)
	if err != nil {
		return "", "", err
	}
	if _, err := commitFiles(files); err != nil {
		return "", "", err
	}
	return files[0].path, files[1].path, nil
}

func testChart(t *testing.T) *Chart {
	t.Helper()
	ch, err := LatencyVsSize("write test", latencySeries(suiteSizes), testCaption)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return n
}

// checkComplete fails unless the files are a whole SVG and a whole PNG.
func checkComplete(t *testing.T, svgPath, pngPath string) {
	t.Helper()
	b, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	parseSVG(t, b)
	f, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(f)); err != nil {
		t.Fatalf("%s: %v", pngPath, err)
	}
}

func TestWriteReplacesWithCompleteFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"lat.svg", "lat.png"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("old, partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	svgPath, pngPath, err := Write(testChart(t), dir, "lat")
	if err != nil {
		t.Fatal(err)
	}
	if svgPath != filepath.Join(dir, "lat.svg") || pngPath != filepath.Join(dir, "lat.png") {
		t.Errorf("paths %s, %s", svgPath, pngPath)
	}
	checkComplete(t, svgPath, pngPath)
	if got := names(t, dir); !slices.Equal(got, []string{"lat.png", "lat.svg"}) {
		t.Errorf("directory holds %v, want just lat.png and lat.svg", got)
	}
	if fi, err := os.Stat(svgPath); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v: want -rw-r--r--", fi.Mode(), err)
	}
}

func TestWriteErrorsLeaveNoFile(t *testing.T) {
	ch := testChart(t)
	parent := t.TempDir()
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir, base, want string }{
		{"missing directory", filepath.Join(parent, "missing"), "x", "no such file or directory"},
		{"file as directory", file, "x", "not a directory"},
		{"name with a directory", parent, "../x", "without a directory"},
		{"empty name", parent, "", "without a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Write(ch, c.dir, c.base)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			if got := names(t, parent); !slices.Equal(got, []string{"file"}) {
				t.Errorf("%s left %v", c.name, got)
			}
		})
	}
}

// A directory the process may not write to: a mode-0500 directory for
// an ordinary user; root ignores modes, so there /proc stands in.
func TestWriteUnwritableDirectory(t *testing.T) {
	dir := "/proc"
	if os.Geteuid() != 0 {
		dir = t.TempDir()
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
	}
	_, _, err := Write(testChart(t), dir, "rdma-bench-plot-test")
	if err == nil {
		t.Fatalf("writing into %s worked, want an error", dir)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not name the directory %s", err, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "rdma-bench-plot-test.svg")); err == nil {
		t.Error("an SVG was left behind")
	}
}

// When one of the two files cannot be put in place, the other is not
// replaced either and no temporary file stays.
func TestWriteKeepsOldFilesWhenBlocked(t *testing.T) {
	dir := t.TempDir()
	old := []byte("<svg>old</svg>")
	if err := os.WriteFile(filepath.Join(dir, "lat.svg"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "lat.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Write(testChart(t), dir, "lat"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("error %v, want one saying it is a directory", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lat.svg")); !bytes.Equal(b, old) {
		t.Error("the old SVG was replaced though the PNG could not be")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"lat.png", "lat.svg"}) {
		t.Errorf("directory holds %v", got)
	}
}

func TestWriteNilChart(t *testing.T) {
	if _, _, err := Write(nil, t.TempDir(), "x"); err == nil {
		t.Fatal("a nil chart was written")
	}
	if _, _, err := Write(&Chart{}, t.TempDir(), "x"); err == nil {
		t.Fatal("an empty chart was written")
	}
	var nilChart *Chart
	if err := nilChart.WriteSVG(&bytes.Buffer{}); err == nil {
		t.Fatal("a nil chart wrote SVG")
	}
	if err := (&Chart{}).WritePNG(&bytes.Buffer{}); err == nil {
		t.Fatal("an empty chart wrote PNG")
	}
}

// TestWriteAllLeavesNothingOnError: a chart that cannot be written
// removes the ones written before it and the directory WriteAll made.
func TestWriteAllLeavesNothingOnError(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "plots")
	ch := testChart(t)
	_, err := WriteAll(context.Background(), dir, []Named{{"one", ch}, {"bad/name", ch}})
	if err == nil || !strings.Contains(err.Error(), `chart file name "bad/name"`) {
		t.Fatalf("WriteAll = %v, want the bad name refused", err)
	}
	if got := names(t, parent); len(got) != 0 {
		t.Errorf("WriteAll left %v", got)
	}
	written, err := WriteAll(context.Background(), dir, []Named{{"one", ch}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "one.svg"), filepath.Join(dir, "one.png")}; !slices.Equal(written, want) {
		t.Errorf("written %v, want %v", written, want)
	}
	file := filepath.Join(dir, "one.svg")
	if _, err := WriteAll(context.Background(), file, nil); err == nil || err.Error() != "chart directory "+file+": not a directory" {
		t.Errorf("WriteAll(a file) = %v", err)
	}
}

// TestWriteAllStopsOnContext: when ctx ends before every picture is
// drawn, WriteAll returns ctx's cause and writes nothing: the charts of an
// earlier run keep their content, no temporary file is left, and a
// directory it would have made is not made.
func TestWriteAllStopsOnContext(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "plots")
	ch := testChart(t)
	if _, err := WriteAll(context.Background(), dir, []Named{{"one", ch}}); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(filepath.Join(dir, "one.svg"))
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("hangup received")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	other, err := LatencyVsSize("another chart", latencySeries(sweepSizes()), testCaption)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteAll(ctx, dir, []Named{{"one", other}, {"two", other}}); !errors.Is(err, cause) {
		t.Fatalf("WriteAll after cancel = %v, want %v", err, cause)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"one.png", "one.svg"}) {
		t.Errorf("directory holds %v, want the earlier charts only", got)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "one.svg")); !bytes.Equal(now, old) {
		t.Error("one.svg changed")
	}
	fresh := filepath.Join(parent, "fresh")
	if _, err := WriteAll(ctx, fresh, []Named{{"one", ch}}); !errors.Is(err, cause) {
		t.Fatalf("WriteAll after cancel = %v, want %v", err, cause)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory was made: %v", err)
	}
}

// TestRenderContextReturnsAtOnce: a drawing that takes long (thousands
// of lines) does not hold the caller past ctx's end.
func TestRenderContextReturnsAtOnce(t *testing.T) {
	cause := errors.New("interrupt received")
	ctx, cancel := context.WithCancelCause(context.Background())
	release := make(chan struct{})
	defer close(release)
	time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	_, err := renderContext(ctx, func() ([]byte, error) { <-release; return nil, nil })
	if !errors.Is(err, cause) || time.Since(start) > time.Second {
		t.Fatalf("renderContext = %v after %v, want the cause at once", err, time.Since(start))
	}
}
