package plot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
)

var errNilChart = errors.New("no chart: build one with a chart function such as LatencyVsSize")

// Named is a chart and the base name of its files.
type Named struct {
	Name  string
	Chart *Chart
}

// WriteAll writes every chart as SVG and PNG into dir, each file as
// package outfile does (a reader never sees a partial file), creating dir
// when missing, and returns the paths written. Every picture is rendered
// before the first file is written, so that when ctx ends
// (with ctx's cause) or a chart fails, nothing is written; an error while
// writing removes what was written, and dir if WriteAll made it.
func WriteAll(ctx context.Context, dir string, charts []Named) ([]string, error) {
	if err := outfile.ProbeDir(dir); err != nil {
		return nil, fmt.Errorf("chart directory %s: %w", dir, unwrapPath(err))
	}
	for _, c := range charts {
		if err := checkBaseName(c.Name); err != nil {
			return nil, err
		}
	}
	var files []pendingFile
	for _, c := range charts {
		f, err := renderFiles(ctx, c.Chart, dir, c.Name)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	created := false
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("chart directory %s: %w", dir, unwrapPath(err))
		}
		created = true
	}
	written, err := commitFiles(files)
	if err != nil && created {
		os.Remove(dir)
	}
	return written, err
}

// pendingFile is a file's path and its whole content.
type pendingFile struct {
	path string
	data []byte
}

// checkBaseName refuses a chart file name that is not a plain name.
func checkBaseName(baseName string) error {
	if baseName == "" || baseName == "." || baseName == ".." ||
		strings.ContainsAny(baseName, `/\`) || strings.ContainsRune(baseName, 0) {
		return fmt.Errorf("chart file name %q: want a plain name without a directory, such as \"write_lat\"", baseName)
	}
	return nil
}

// renderFiles renders chart as dir/baseName.svg and .png, in memory. It
// returns when ctx ends, with ctx's cause, even while a picture is drawn:
// gonum cannot be stopped, and a chart of thousands of lines takes
// seconds; the drawing is left to end by itself.
func renderFiles(ctx context.Context, chart *Chart, dir, baseName string) ([]pendingFile, error) {
	if chart == nil {
		return nil, errNilChart
	}
	if err := checkBaseName(baseName); err != nil {
		return nil, err
	}
	var out []pendingFile
	for _, r := range []struct {
		ext    string
		render func() ([]byte, error)
	}{{".svg", chart.svgBytes}, {".png", chart.pngBytes}} {
		b, err := renderContext(ctx, r.render)
		if err != nil {
			return nil, err
		}
		out = append(out, pendingFile{filepath.Join(dir, baseName+r.ext), b})
	}
	return out, nil
}

// renderContext returns render's outcome, or ctx's cause as soon as ctx
// ends.
func renderContext(ctx context.Context, render func() ([]byte, error)) ([]byte, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	type rendered struct {
		b   []byte
		err error
	}
	done := make(chan rendered, 1)
	go func() {
		b, err := render()
		done <- rendered{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// commitFiles writes files as package outfile does: every pending file is
// made and written before any is committed, so that a path that cannot be
// written leaves every file its old content; if a commit fails, the files
// committed before it are removed. It returns the paths written.
func commitFiles(files []pendingFile) (written []string, err error) {
	var pending []*outfile.File
	defer func() {
		for _, f := range pending {
			f.Abort() // a no-op for the ones committed
		}
		if err != nil {
			for _, p := range written {
				os.Remove(p)
			}
			written = nil
		}
	}()
	for _, f := range files {
		out, err := outfile.Create(f.path)
		if err != nil {
			return nil, fmt.Errorf("writing chart %w", err)
		}
		pending = append(pending, out)
		if _, err := out.Write(f.data); err != nil {
			return nil, err
		}
	}
	for i, f := range pending {
		if err := f.Commit(); err != nil {
			return written, err
		}
		written = append(written, files[i].path)
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
