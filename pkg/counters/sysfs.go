package counters

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lifespanFile is the setting ib_core adds to every hw_counters directory:
// how long (ms) the kernel serves counter reads from its cache.
const lifespanFile = "lifespan"

// readGroup reads every file of a counter directory into s.
func (r Reader) readGroup(s *Snapshot, src Source, dir string) {
	r.readDir(s, r.Class, r.Root, src, dir)
}

// readDir reads every regular file of dir in fsys as a counter of src;
// messages name files under root.
func (r Reader) readDir(s *Snapshot, fsys fs.FS, root string, src Source, dir string) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		s.Unavailable = append(s.Unavailable, Unavailable{
			Source: src, Reason: reasonOf(err), Detail: describe(filepath.Join(root, dir), err),
		})
		return
	}
	for _, e := range entries {
		name := e.Name()
		file := path.Join(dir, name)
		if e.IsDir() {
			s.Unavailable = append(s.Unavailable, Unavailable{
				Source: src, Name: name, Reason: ReasonMalformed,
				Detail: filepath.Join(root, file) + " is a directory, not a counter file",
			})
			continue
		}
		v, u, ok := readValue(fsys, file, filepath.Join(root, file))
		if !ok {
			u.Source, u.Name = src, name
			s.Unavailable = append(s.Unavailable, u)
			continue
		}
		if name == lifespanFile && (src == SourcePortHW || src == SourceDeviceHW) {
			if s.LifespanMS == nil {
				s.LifespanMS = map[Source]int{}
			}
			s.LifespanMS[src] = int(min(v, 1<<31-1))
			continue
		}
		s.Counters = append(s.Counters, Counter{Source: src, Name: name, Value: v})
	}
}

// readValue reads one counter file: a decimal number, as sysfs writes it;
// messages call it shown.
func readValue(fsys fs.FS, file, shown string) (uint64, Unavailable, bool) {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return 0, Unavailable{Reason: reasonOf(err), Detail: describe(shown, err)}, false
	}
	text := strings.TrimSpace(string(b))
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		if len(text) > 40 {
			text = text[:40] + "..."
		}
		return 0, Unavailable{
			Reason: ReasonMalformed,
			Detail: fmt.Sprintf("%s holds %q, not a counter value (a decimal number)", shown, text),
		}, false
	}
	return v, Unavailable{}, true
}

// readNetdev reads the statistics of the port's network device, if any.
func (r Reader) readNetdev(s *Snapshot, portDir string) {
	if r.Net == nil {
		return
	}
	nd, err := r.netdevOf(portDir)
	if err != nil {
		s.Unavailable = append(s.Unavailable, Unavailable{
			Source: SourceNetdev, Reason: reasonOf(err), Detail: err.Error(),
		})
		return
	}
	s.Netdev = nd
	r.readDir(s, r.Net, r.NetRoot, SourceNetdev, path.Join(nd, "statistics"))
}

// netdevOf names the network device of a RoCE port: the first of the
// GID table's first entries that has one (ports/<port>/gid_attrs/ndevs/<index>).
// The entries are read by index, not listed: the table holds hundreds of
// them (rxe: 1024), and listing them took up to 45 ms a snapshot in the
// emulated VM.
func (r Reader) netdevOf(portDir string) (string, error) {
	dir := path.Join(portDir, "gid_attrs", "ndevs")
	if _, err := fs.Stat(r.Class, dir); err != nil {
		return "", fmt.Errorf("port has no network device list: %s", describe(filepath.Join(r.Root, dir), err))
	}
	last := "no GID entries"
	for i := range 16 {
		b, err := fs.ReadFile(r.Class, path.Join(dir, strconv.Itoa(i)))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) || i == 0 {
				last = describe(filepath.Join(r.Root, dir, strconv.Itoa(i)), err)
			}
			continue
		}
		if nd := strings.TrimSpace(string(b)); nd != "" && !strings.ContainsAny(nd, "/\x00") {
			return nd, nil
		}
	}
	// An InfiniBand port has no network device: missing, not a failure.
	return "", fmt.Errorf("no GID entry of the port names a network device (%s): %w", last, fs.ErrNotExist)
}

// reasonOf classifies a read error.
func reasonOf(err error) Reason {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENODEV):
		return ReasonMissing
	case errors.Is(err, fs.ErrPermission):
		return ReasonPermission
	case errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENODATA),
		errors.Is(err, syscall.EPROTONOSUPPORT), errors.Is(err, syscall.EAFNOSUPPORT),
		errors.Is(err, errors.ErrUnsupported):
		return ReasonUnsupported
	}
	return ReasonUnreadable
}

// describe says what failed on file, without repeating the path that
// *fs.PathError already holds.
func describe(file string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s %s: %v", pe.Op, file, pe.Err)
	}
	return fmt.Sprintf("%s: %v", file, err)
}
