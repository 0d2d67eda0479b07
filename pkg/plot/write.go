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

// Named is a chart and the base name of its files.
type Named struct {
	Name  string
	Chart *Chart
}

// WriteAll writes every chart as SVG and PNG into dir (see [Write]),
// creating dir when missing, and returns the paths written. On error it
// removes what it wrote, and dir if it made it, so that nothing partial
// is left.
func WriteAll(dir string, charts []Named) (written []string, err error) {
	created := false
	if fi, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("chart directory %s: %w", dir, unwrapPath(err))
		}
		created = true
	} else if err != nil {
		return nil, fmt.Errorf("chart directory %s: %w", dir, unwrapPath(err))
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("chart directory %s: not a directory", dir)
	}
	defer func() {
		if err != nil {
			for _, p := range written {
				os.Remove(p)
			}
			written = nil
			if created {
				os.Remove(dir)
			}
		}
	}()
	for _, c := range charts {
		svg, png, err := Write(c.Chart, dir, c.Name)
		if err != nil {
			return written, err
		}
		written = append(written, svg, png)
	}
	return written, nil
}

// unwrapPath drops the path from an *os.PathError: the message names it.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
