package softroce

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MadePath is where Up notes the device it made, so that measuring
// commands given no -d measure on it rather than on another RDMA device
// of the host (a hosted runner's own NIC is one): a file in /run, gone at
// the next boot. Tests point it elsewhere.
var MadePath = "/run/rdma-bench/softroce-device"

// Made is the device `rdma-bench softroce up` made, when it still exists;
// "" otherwise.
func Made() string {
	b, err := os.ReadFile(MadePath)
	if err != nil {
		return ""
	}
	name := strings.TrimSpace(string(b))
	if name == "" || strings.ContainsAny(name, "/\n") {
		return ""
	}
	if _, err := os.Stat(filepath.Join(sysfsRoot, "class", "infiniband", name)); err != nil {
		return ""
	}
	return name
}

// remember notes name as the device Up made.
func remember(name string) error {
	if err := os.MkdirAll(filepath.Dir(MadePath), 0o755); err != nil {
		return fmt.Errorf("noting the device made: %w", err)
	}
	if err := os.WriteFile(MadePath, []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("noting the device made: %w", err)
	}
	return nil
}

// forget removes the note of the device Up made, when it names name.
func forget(name string) error {
	b, err := os.ReadFile(MadePath)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && strings.TrimSpace(string(b)) != name) {
		return nil
	}
	if err == nil {
		err = os.Remove(MadePath)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the note of the device made: %w", err)
	}
	return nil
}
