package plot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

var errNilChart = errors.New("no chart: build one with a chart function such as LatencyVsSize")

// Write writes chart as dir/baseName.svg and dir/baseName.png. Both
// pictures are rendered in memory first and each file is written under a
// temporary name in dir and renamed into place, so a reader never sees a
// partial file and an existing file is only ever replaced by a complete
// one. On error no new file, temporary or final, is left behind.
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
	files := []struct {
		path string
		data []byte
	}{{svgPath, svg}, {pngPath, png}}
	for _, f := range files {
		if fi, err := os.Lstat(f.path); err == nil && fi.IsDir() {
			return "", "", fmt.Errorf("writing chart %s: a directory is in the way", f.path)
		}
	}
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t) // a no-op for the ones already renamed
		}
	}()
	for _, f := range files {
		t, err := writeTemp(f.path, f.data)
		if err != nil {
			return "", "", err
		}
		temps = append(temps, t)
	}
	for i, f := range files {
		if err := os.Rename(temps[i], f.path); err != nil {
			return "", "", fmt.Errorf("writing chart %s: %w", f.path, err)
		}
	}
	return svgPath, pngPath, nil
}

// writeTemp writes data to a new temporary file beside path, synced to
// disk and readable like a file os.Create makes, and returns its name.
func writeTemp(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("writing %s: cannot create a file in directory %s: %w", path, filepath.Dir(path), err)
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return name, nil
}
