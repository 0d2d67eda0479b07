package verbs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckHugePages: a run needing more 2 MiB pages than are free (free
// minus reserved) is refused with the figures and the setting to raise.
func TestCheckHugePages(t *testing.T) {
	dir := t.TempDir()
	for name, v := range map[string]string{"free_hugepages": "5\n", "resv_hugepages": "2\n", "nr_hugepages": "6\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := hugePagesDir
	hugePagesDir = dir
	t.Cleanup(func() { hugePagesDir = old })
	if err := CheckHugePages(3); err != nil {
		t.Errorf("3 of 3 free: %v", err)
	}
	err := CheckHugePages(4)
	if err == nil || !strings.Contains(err.Error(), "needs 4 huge pages of 2 MiB and 3 are free") ||
		!strings.Contains(err.Error(), "echo 7 > /proc/sys/vm/nr_hugepages") {
		t.Errorf("4 needed, 3 free: %v", err)
	}
	hugePagesDir = filepath.Join(dir, "none")
	if err := CheckHugePages(1); err == nil || !strings.Contains(err.Error(), "no 2 MiB huge pages") {
		t.Errorf("no pool: %v", err)
	}
}

// TestNewHugeBuffer: a buffer of huge pages rounds up to whole 2 MiB
// pages, or fails where there are none: never small pages instead.
func TestNewHugeBuffer(t *testing.T) {
	if HugePagesFor(1) != 1 || HugePagesFor(2<<20) != 1 || HugePagesFor(2<<20+1) != 2 {
		t.Fatal("HugePagesFor does not round up to whole pages")
	}
	free, err := FreeHugePages()
	if err != nil || free == 0 {
		if _, err := NewHugeBuffer(4096); err == nil {
			t.Fatal("mapped huge pages where none are free")
		}
		t.Skipf("no free huge pages here (%v): only the refusal is checked", err)
	}
	b, err := NewHugeBuffer(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.PageBytes() != HugePageBytes || b.Len() != 4096 {
		t.Errorf("page %d, len %d", b.PageBytes(), b.Len())
	}
	b.Bytes()[4095] = 1
}
