package plot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
)

var errNilChart = errors.New("no chart: build one with a chart function such as LatencyVsSize")

// Write writes chart as dir/baseName.svg and dir/baseName.png. Both
// pictures are rendered in memory first and each file is written as
// package outfile does, so a reader never sees a partial file and an
// existing file is only ever replaced by a complete one. On error no new
// file, temporary or final, is left behind.
func Write(chart *Chart, dir, baseName string) (svgPath, pngPath string, err error) {
	if chart == nil {
		return "", "", errNilChart
	}
	if baseName == "" || baseName == "." || baseName == ".." ||
		strings.ContainsAny(baseName, `/\`) || strings.ContainsRune(baseName, 0) {
		return "", "", fmt.Errorf("chart file name %q: want a plain name without a directory, such as \"write_lat\"", baseName)
	}
	if fi, err := os.Stat(dir); err != nil {
		return "", "", fmt.Errorf("chart directory: %w", err)
	} else if !fi.IsDir() {
		return "", "", fmt.Errorf("chart directory %s: not a directory", dir)
	}
	svg, err := chart.svgBytes()
	if err != nil {
		return "", "", err
	}
	png, err := chart.pngBytes()
	if err != nil {
		return "", "", err
	}
	svgPath = filepath.Join(dir, baseName+".svg")
	pngPath = filepath.Join(dir, baseName+".png")
	// Both pending files are made before either is committed, so a path
	// that cannot be written leaves the other file's old content.
	var pending []*outfile.File
	defer func() {
		for _, f := range pending {
			f.Abort() // a no-op for the ones committed
		}
	}()
	for _, f := range []struct {
		path string
		data []byte
	}{{svgPath, svg}, {pngPath, png}} {
		out, err := outfile.Create(f.path)
		if err != nil {
			return "", "", fmt.Errorf("writing chart %w", err)
		}
		pending = append(pending, out)
		if _, err := out.Write(f.data); err != nil {
			return "", "", err
		}
	}
	for _, f := range pending {
		if err := f.Commit(); err != nil {
			return "", "", err
		}
	}
	return svgPath, pngPath, nil
}
