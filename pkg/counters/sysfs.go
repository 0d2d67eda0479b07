package counters

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lifespanFile is the setting ib_core adds to every hw_counters directory:
// how long (ms) the kernel serves counter reads from its cache.
const lifespanFile = "lifespan"

// Watch is one port's counters, listed and opened once ([Reader.Watch]),
// read afresh by every Take. Close it when done.
type Watch struct {
	r      Reader
	device string
	port   int
	netdev string
	// items are what a snapshot holds, in the order it reads them: the
	// files, what the listing found unreadable, and the netlink query.
	items []watchItem
}

// watchItem is one counter file, or an entry the listing found
// unavailable (fixed), or the place of the netlink query.
type watchItem struct {
	src     Source
	name    string
	fsys    fs.FS
	file    string // its path in fsys
	shown   string // its path, as messages name it
	f       io.ReaderAt
	closer  io.Closer
	fixed   *Unavailable
	netlink bool
}

// list adds the files of a counter directory of fsys (messages name it
// under root) to the watch, each opened where it can be read again from
// its start (sysfs files can: a read at offset 0 shows the value anew).
func (w *Watch) list(fsys fs.FS, root string, src Source, dir string) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		w.items = append(w.items, watchItem{fixed: &Unavailable{
			Source: src, Reason: reasonOf(err), Detail: describe(filepath.Join(root, dir), err),
		}})
		return
	}
	for _, e := range entries {
		name := e.Name()
		file := path.Join(dir, name)
		if e.IsDir() {
			w.items = append(w.items, watchItem{fixed: &Unavailable{
				Source: src, Name: name, Reason: ReasonMalformed,
				Detail: filepath.Join(root, file) + " is a directory, not a counter file",
			}})
			continue
		}
		it := watchItem{src: src, name: name, fsys: fsys, file: file, shown: filepath.Join(root, file)}
		if f, err := fsys.Open(file); err == nil {
			if ra, ok := f.(io.ReaderAt); ok {
				it.f, it.closer = ra, f
			} else {
				f.Close()
			}
		}
		w.items = append(w.items, it)
	}
}

// listNetdev adds the statistics of the port's network device, if any.
func (w *Watch) listNetdev(portDir string) {
	if w.r.Net == nil {
		return
	}
	nd, err := w.r.netdevOf(portDir)
	if err != nil {
		w.items = append(w.items, watchItem{fixed: &Unavailable{
			Source: SourceNetdev, Reason: reasonOf(err), Detail: err.Error(),
		}})
		return
	}
	w.netdev = nd
	w.list(w.r.Net, w.r.NetRoot, SourceNetdev, path.Join(nd, "statistics"))
}

// Take snapshots the watched counters now.
func (w *Watch) Take() Snapshot {
	now := time.Now
	if w.r.Now != nil {
		now = w.r.Now
	}
	s := Snapshot{Device: w.device, Port: w.port, Netdev: w.netdev, TakenAt: now()}
	for _, it := range w.items {
		switch {
		case it.netlink:
			w.r.readNetlink(&s)
			continue
		case it.fixed != nil:
			s.Unavailable = append(s.Unavailable, *it.fixed)
			continue
		}
		v, u, ok := it.value()
		if !ok {
			u.Source, u.Name = it.src, it.name
			s.Unavailable = append(s.Unavailable, u)
			continue
		}
		if it.name == lifespanFile && (it.src == SourcePortHW || it.src == SourceDeviceHW) {
			if s.LifespanMS == nil {
				s.LifespanMS = map[Source]int{}
			}
			s.LifespanMS[it.src] = int(min(v, 1<<31-1))
			continue
		}
		s.Counters = append(s.Counters, Counter{Source: it.src, Name: it.name, Value: v})
	}
	sort.SliceStable(s.Counters, func(i, j int) bool {
		a, b := s.Counters[i], s.Counters[j]
		if a.Source != b.Source {
			return sourceRank(a.Source) < sourceRank(b.Source)
		}
		return a.Name < b.Name
	})
	return s
}

// Close closes the watched files.
func (w *Watch) Close() error {
	var errs []error
	for _, it := range w.items {
		if it.closer != nil {
			errs = append(errs, it.closer.Close())
		}
	}
	w.items = nil
	return errors.Join(errs...)
}

// maxValueBytes is the most a counter file holds: a 64-bit decimal
// number and a newline fit many times over.
const maxValueBytes = 64

// value reads one counter: a decimal number, as sysfs writes it.
func (it watchItem) value() (uint64, Unavailable, bool) {
	var b []byte
	var err error
	if it.f != nil {
		var buf [maxValueBytes]byte
		n, rerr := it.f.ReadAt(buf[:], 0)
		b, err = buf[:n], rerr
		if errors.Is(err, io.EOF) {
			err = nil
		} else if err == nil {
			// Longer than any counter: read it whole, for the message.
			b, err = fs.ReadFile(it.fsys, it.file)
		}
		if err != nil {
			err = &fs.PathError{Op: "read", Path: it.file, Err: err}
		}
	} else {
		b, err = fs.ReadFile(it.fsys, it.file)
	}
	if err != nil {
		return 0, Unavailable{Reason: reasonOf(err), Detail: describe(it.shown, err)}, false
	}
	return parseValue(b, it.shown)
}

// parseValue reads a counter file's content; messages call it shown.
func parseValue(b []byte, shown string) (uint64, Unavailable, bool) {
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
