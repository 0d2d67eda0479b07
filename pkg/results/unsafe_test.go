package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/infile"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// loadWithin runs Load and fails the test if it has not returned in 10 s.
func loadWithin(t *testing.T, paths ...string) ([]*document.Document, error) {
	t.Helper()
	type result struct {
		docs []*document.Document
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		d, err := Load(paths...)
		ch <- result{d, err}
	}()
	select {
	case r := <-ch:
		return r.docs, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Load%q hung", paths)
		return nil, nil
	}
}

// dirWith is a directory holding a good document a.json and what add makes.
func dirWith(t *testing.T, add func(dir string) error) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/base/a.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := add(dir); err != nil {
		t.Skipf("cannot make the test file: %v", err)
	}
	return dir
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q, want it to say %q", err, p)
		}
	}
}

func TestLoadFIFOInDirectory(t *testing.T) {
	dir := dirWith(t, func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "x.json"), 0o600) })
	_, err := loadWithin(t, dir)
	wantErr(t, err, filepath.Join(dir, "x.json")+": a FIFO: want a regular file")
	_, err = loadWithin(t, filepath.Join(dir, "*.json"))
	wantErr(t, err, "x.json: a FIFO: want a regular file")
}

// A FIFO the user names is a stream, read to its end.
func TestLoadNamedFIFO(t *testing.T) {
	dir := dirWith(t, func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "s.json"), 0o600) })
	b, _ := os.ReadFile(filepath.Join(dir, "a.json"))
	go func() {
		w, err := os.OpenFile(filepath.Join(dir, "s.json"), os.O_WRONLY, 0)
		if err == nil {
			w.Write(b)
			w.Close()
		}
	}()
	docs, err := loadWithin(t, filepath.Join(dir, "s.json"))
	if err != nil || len(docs) != 1 {
		t.Fatalf("named FIFO: %d documents, %v", len(docs), err)
	}
}

func TestLoadLinkToDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := dirWith(t, func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, "z.json")) })
	_, err := loadWithin(t, dir)
	wantErr(t, err, "z.json: a character device: want a regular file")
	_, err = loadWithin(t, filepath.Join(dir, "z.json"))
	wantErr(t, err, "z.json: a character device: want a regular file")
}

func TestLoadOversized(t *testing.T) {
	old := infile.MaxBytes
	t.Cleanup(func() { infile.MaxBytes = old })
	infile.MaxBytes = 100
	_, err := loadWithin(t, "testdata/base/a.json")
	wantErr(t, err, "testdata/base/a.json: larger than 100 bytes")
	_, err = loadWithin(t, "testdata/base")
	wantErr(t, err, "testdata/base/a.json: larger than 100 bytes")
}

func TestLoadSymlinkLoop(t *testing.T) {
	dir := dirWith(t, func(dir string) error {
		if err := os.Symlink("l2.json", filepath.Join(dir, "l1.json")); err != nil {
			return err
		}
		return os.Symlink("l1.json", filepath.Join(dir, "l2.json"))
	})
	_, err := loadWithin(t, dir)
	wantErr(t, err, "l1.json: too many levels of symbolic links")
	// A link to the directory itself is not entered.
	dir = dirWith(t, func(dir string) error { return os.Symlink(".", filepath.Join(dir, "self.json")) })
	_, err = loadWithin(t, dir)
	wantErr(t, err, "self.json: a directory: want a regular file")
}

// TestLoadSanitizesText: a document's text reaches every view escaped,
// never as a terminal escape sequence.
func TestLoadSanitizesText(t *testing.T) {
	path := editedDoc(t, func(doc map[string]any) {
		doc["label"] = "\x1b]0;owned\x07\x1b[2J"
		doc["host"].(map[string]any)["hostname"] = "h\x1b[31m"
	})
	docs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := docs[0]; d.Label != `\x1b]0;owned\a\x1b[2J` || strings.ContainsRune(d.Host.Hostname, 0x1b) {
		t.Errorf("label %q, host %q: want them escaped", d.Label, d.Host.Hostname)
	}
}

// editedDoc writes testdata/base/a.json, changed by edit, to a temporary
// file and returns its path.
func editedDoc(t *testing.T, edit func(doc map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile("testdata/base/a.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	b, _ = json.Marshal(doc)
	path := filepath.Join(t.TempDir(), "edited.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadEscapesFileNames: a file name found in a directory reaches a
// message escaped.
func TestLoadEscapesFileNames(t *testing.T) {
	dir := dirWith(t, func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "e\x1b[2J.json"), []byte("{"), 0o644)
	})
	_, err := loadWithin(t, dir)
	wantErr(t, err, `e\x1b[2J.json: not JSON`)
	if err != nil && strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("error %q holds an escape character", err)
	}
}
