package softroce

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMade(t *testing.T) {
	fakeSysfs(t, map[string]string{"class/infiniband/rxe0/parent": "eth0\n"})
	old := MadePath
	MadePath = filepath.Join(t.TempDir(), "run", "softroce-device")
	t.Cleanup(func() { MadePath = old })
	if got := Made(); got != "" {
		t.Errorf("Made() with no note = %q", got)
	}
	if err := remember("rxe0"); err != nil {
		t.Fatal(err)
	}
	if got := Made(); got != "rxe0" {
		t.Errorf("Made() = %q, want rxe0", got)
	}
	if err := forget("rxe1"); err != nil { // another device: the note stays
		t.Fatal(err)
	}
	if got := Made(); got != "rxe0" {
		t.Errorf("Made() after forgetting rxe1 = %q, want rxe0", got)
	}
	if err := remember("rxe9"); err != nil { // gone since: not named
		t.Fatal(err)
	}
	if got := Made(); got != "" {
		t.Errorf("Made() naming a device that is gone = %q", got)
	}
	if err := forget("rxe9"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(MadePath); !os.IsNotExist(err) {
		t.Errorf("the note is still there after forget: %v", err)
	}
	if err := forget("rxe9"); err != nil {
		t.Errorf("forget with no note: %v", err)
	}
}
