package verbs

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Test-only: the GID table as sysfs shows it, the independent source the
// device test checks Context.GIDTable against (runs use the one verbs call).

// ParseGID parses a GID as sysfs prints it (fe80:0000:...:0001) or as any
// textual IPv6 address.
func ParseGID(s string) (GID, error) {
	ip := net.ParseIP(strings.TrimSpace(s))
	if ip == nil {
		return GID{}, fmt.Errorf("invalid gid %q", s)
	}
	var g GID
	copy(g[:], ip.To16())
	return g, nil
}

// parseGIDType parses the text of sysfs gid_attrs/types/N.
func parseGIDType(s string) (GIDType, error) {
	switch strings.TrimSpace(s) {
	case "IB/RoCE v1", "RoCE v1":
		return GIDTypeRoCEv1, nil
	case "RoCE v2":
		return GIDTypeRoCEv2, nil
	case "IB":
		return GIDTypeIB, nil
	}
	return 0, fmt.Errorf("unknown gid type %q", strings.TrimSpace(s))
}

// ReadGIDTable reads the populated GID entries of port of device dev from
// a sysfs tree rooted at root (SysfsRoot on a live system). On an
// InfiniBand port (no gid_attrs types) every entry is of type IB. Runs use
// Context.GIDTable, one verbs call; this reader works on saved or fake
// trees and is the independent source the device test checks that against.
func ReadGIDTable(root, dev string, port int) ([]GIDEntry, error) {
	dir := filepath.Join(root, dev, "ports", strconv.Itoa(port))
	files, err := os.ReadDir(filepath.Join(dir, "gids"))
	if err != nil {
		return nil, fmt.Errorf("reading gid table of %s port %d: %w", dev, port, err)
	}
	var table []GIDEntry
	for _, f := range files {
		idx, err := strconv.Atoi(f.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "gids", f.Name()))
		if err != nil {
			return nil, fmt.Errorf("reading gid %d of %s port %d: %w", idx, dev, port, err)
		}
		g, err := ParseGID(string(raw))
		if err != nil {
			return nil, fmt.Errorf("gid %d of %s port %d: %w", idx, dev, port, err)
		}
		if g.IsZero() {
			continue
		}
		e := GIDEntry{Index: idx, GID: g, Type: GIDTypeIB}
		// Reading an unpopulated entry's type fails with EINVAL; a
		// missing gid_attrs directory means an InfiniBand port.
		if t, err := os.ReadFile(filepath.Join(dir, "gid_attrs", "types", f.Name())); err == nil {
			if e.Type, err = parseGIDType(string(t)); err != nil {
				return nil, fmt.Errorf("gid %d of %s port %d: %w", idx, dev, port, err)
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if nd, err := os.ReadFile(filepath.Join(dir, "gid_attrs", "ndevs", f.Name())); err == nil {
			e.Netdev = strings.TrimSpace(string(nd))
		}
		table = append(table, e)
	}
	sort.Slice(table, func(i, j int) bool { return table[i].Index < table[j].Index })
	return table, nil
}
