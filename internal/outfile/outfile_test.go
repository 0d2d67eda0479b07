package outfile

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func write(t *testing.T, path, s string) error {
	t.Helper()
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(s)); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps fails if dir holds a pending file.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("pending file %s left in %s", e.Name(), dir)
		}
	}
}

func TestNewAndRegularFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := write(t, p, "one"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "one" {
		t.Fatalf("new file holds %q", got)
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("two"))
	if got := read(t, p); got != "one" {
		t.Fatalf("before Commit the file holds %q, want the old content", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "two" {
		t.Fatalf("replaced file holds %q", got)
	}
	f, _ = Create(p)
	f.Write([]byte("three"))
	f.Abort()
	f.Abort()
	if got := read(t, p); got != "two" {
		t.Fatalf("after Abort the file holds %q, want the old content", got)
	}
	noTemps(t, dir)
}

func TestSymlinkReplacesTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub", "target.txt")
	os.Mkdir(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("sub/target.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := write(t, link, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if got := read(t, target); got != "new" {
		t.Fatalf("target holds %q", got)
	}
	noTemps(t, dir)
	noTemps(t, filepath.Dir(target))
}

func TestDanglingSymlinkCreatesTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.txt")
	os.Symlink("made.txt", link)
	if err := write(t, link, "x"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "made.txt")); got != "x" {
		t.Fatalf("target holds %q", got)
	}
}

func TestSymlinkLoopRefused(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	if err := write(t, a, "x"); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Fatalf("a link loop gave %v, want an error naming the links", err)
	}
}

func TestDevNullWrittenInPlace(t *testing.T) {
	fi0, err := os.Lstat("/dev/null")
	if err != nil {
		t.Skip("no /dev/null")
	}
	if err := write(t, "/dev/null", "discarded"); err != nil {
		t.Fatal(err)
	}
	fi1, _ := os.Lstat("/dev/null")
	if !os.SameFile(fi0, fi1) || fi1.Mode()&os.ModeDevice == 0 {
		t.Fatal("/dev/null was replaced")
	}
	// A link to a device is followed and written in place too.
	link := filepath.Join(t.TempDir(), "null")
	os.Symlink("/dev/null", link)
	if err := write(t, link, "x"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link to /dev/null was replaced")
	}
}

func TestFIFOWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := Create(p) // must not block: nothing is opened yet
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("through the pipe"))
	got := make(chan string, 1)
	go func() {
		r, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(r)
		r.Close()
		got <- string(b)
	}()
	done := make(chan error, 1)
	go func() { done <- f.Commit() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Commit to a FIFO hung")
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("reader got %q", s)
	}
	if fi, _ := os.Lstat(p); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	noTemps(t, dir)
}

func TestDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := Create(dir)
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("a directory gave %v, want refused", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(".", link)
	if _, err := Create(link); err == nil {
		t.Fatal("a link to a directory was accepted")
	}
	noTemps(t, dir)
}

func TestMissingDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "out.txt")
	if _, err := Create(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("a missing directory gave %v, want an error naming %s", err, p)
	}
}

func TestDashIsStdout(t *testing.T) {
	for _, p := range []string{"-", ""} {
		f, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if f.mode != stdout || f.tmp != nil {
			t.Fatalf("%q: mode %d, want standard output", p, f.mode)
		}
		f.Abort()
	}
}

func TestStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	// A pid that cannot be running: above the kernel's pid_max.
	dead := filepath.Join(dir, ".out.txt"+tempMark+"2147483646-123.tmp")
	live := filepath.Join(dir, ".out.txt"+tempMark+strconv.Itoa(os.Getpid())+"-456.tmp")
	other := filepath.Join(dir, ".other.txt"+tempMark+"2147483646-1.tmp")
	for _, n := range []string{dead, live, other} {
		os.WriteFile(n, nil, 0o644)
	}
	if err := write(t, p, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("a killed run's pending file was kept")
	}
	for _, n := range []string{live, other} {
		if _, err := os.Stat(n); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(n), err)
		}
	}
}

func TestCreateNewNeverReplaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made")
	var paths []string
	for i := 0; i < 3; i++ {
		f, err := CreateNew(dir, "doc", ".json")
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(strconv.Itoa(i)))
		p, err := f.Commit()
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
		if got := read(t, p); got != strconv.Itoa(i) {
			t.Fatalf("%s holds %q", p, got)
		}
	}
	if strings.Join(paths, " ") != "doc.json doc-1.json doc-2.json" {
		t.Fatalf("names %v", paths)
	}
	noTemps(t, dir)
	if err := CheckDir(dir); err != nil {
		t.Fatal(err)
	}
	noTemps(t, dir)
}

// TestProcFdWrittenInPlace is /dev/stdout redirected to a file: the link
// through /proc names an open file, written in place and never replaced.
func TestProcFdWrittenInPlace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "redirected.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if _, err := os.Lstat(fd); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	before, _ := os.Stat(p)
	if err := write(t, fd, "via the descriptor"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) {
		t.Fatal("the redirected file was replaced by a new one")
	}
	if got := read(t, p); got != "via the descriptor" {
		t.Fatalf("file holds %q", got)
	}
	if fi, _ := os.Lstat(fd); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the /proc link was replaced")
	}
}

// A stream is written in place as it goes: a reader sees each write at
// once, a file that was there is truncated first, a directory refused.
func TestStream(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.ndjson")
	if err := os.WriteFile(path, []byte("old content that is longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := CreateStreamTo(path, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("not truncated at once: %q", b)
	}
	if _, err := s.Write([]byte("{\"type\":\"start\"}\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{\"type\":\"start\"}\n" {
		t.Errorf("a reader sees %q before Close", b)
	}
	if err := s.Close(); err != nil || s.Close() != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := CreateStreamTo(dir, os.Stdout); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if s, err := CreateStreamTo("-", os.Stdout); err != nil || s.Path() != "-" || s.Close() != nil {
		t.Errorf("standard output: %v", err)
	}
}
