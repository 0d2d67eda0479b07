package fabric

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdma-bench/rdma-bench/internal/infile"
	"github.com/rdma-bench/rdma-bench/internal/outfile"
)

// AddrFileName is the file rank 0 writes in --rendezvous-dir: its
// coordinator's HOST:PORT and a newline.
const AddrFileName = "rdma-bench-fabric.addr"

// writeAddrFile writes addr to dir's address file as package outfile
// does, so that a reader sees the whole address or none.
func writeAddrFile(dir, addr string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return fmt.Errorf("--rendezvous-dir %s: %w: give a directory every host shares", dir, err)
	}
	if err := outfile.WriteFile(filepath.Join(dir, AddrFileName), []byte(addr+"\n")); err != nil {
		return fmt.Errorf("--rendezvous-dir %s is not writable by rank 0: %w: give a directory on a filesystem every host shares", dir, err)
	}
	return nil
}

// readAddrFile reads the address rank 0 wrote in dir. A file that does not
// exist yet gives an error wrapping fs.ErrNotExist.
func readAddrFile(dir string) (string, error) {
	path := filepath.Join(dir, AddrFileName)
	b, err := infile.ReadRegular(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	addr := strings.TrimSpace(string(b))
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", fmt.Errorf("%s holds %q: want HOST:PORT", path, addr)
	}
	return addr, nil
}

// removeAddrFile removes the address file so that the next run using the
// directory does not find this run's address. Failing is harmless: the
// next run's ranks re-read a stale file until its rank 0 replaces it.
func removeAddrFile(dir string) {
	_ = os.Remove(filepath.Join(dir, AddrFileName))
}
