package fabric

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// PairLog is rank 0's record of a sweep's pairs: each outcome is written
// to a file as its round ends and read back one pass at a time for the
// matrices, the suspects and the outputs. Rank 0 then holds a round's
// outcomes, not the sweep's, whatever the schedule and however large the
// pairs' results (docs/fabric.md, "Rank 0's memory"). A rank 0 that dies
// leaves the file, every pair measured until then in it, a line of JSON
// each.
//
// The analysis reads the pairs many times (a pass per metric for the
// medians, the suspects and their reference, the matrices): beside the
// JSON it keeps each pair's figures and failure, without its result, in a
// compact binary file that these passes read.
type PairLog struct {
	path        string // the JSON lines' file
	full, light logFile
	n, failed   int
	// metrics are the metrics any pair has a figure for, by their index in
	// the binary records.
	metrics map[string]uint16
	names   []string
	// err is the first error writing or reading the files; every pass
	// after it reports it.
	err error
}

// logFile is one file of a PairLog.
type logFile struct {
	f *os.File
	w *bufio.Writer
}

func createLogFile(dir, pattern string) (logFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return logFile{}, fmt.Errorf("the sweep's pair log: %w", err)
	}
	return logFile{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// NewPairLog creates a pair log in dir (the system's temporary directory
// when "").
func NewPairLog(dir string) (*PairLog, error) {
	full, err := createLogFile(dir, "rdma-bench-fabric-*.pairs.ndjson")
	if err != nil {
		return nil, err
	}
	light, err := createLogFile(dir, ".rdma-bench-fabric-*.figures")
	if err != nil {
		full.f.Close()
		os.Remove(full.f.Name())
		return nil, err
	}
	return &PairLog{path: full.f.Name(), full: full, light: light, metrics: map[string]uint16{}}, nil
}

// Path is the file holding the pairs as JSON lines.
func (l *PairLog) Path() string { return l.path }

// Len is the number of pairs logged.
func (l *PairLog) Len() int { return l.n }

// Failed is the number of failed pairs logged.
func (l *PairLog) Failed() int { return l.failed }

// Err is the first error writing or reading the log, nil when none.
func (l *PairLog) Err() error { return l.err }

func (l *PairLog) fail(err error) error {
	if l.err == nil {
		l.err = fmt.Errorf("the sweep's pair log %s: %w", l.Path(), err)
	}
	return l.err
}

// Add appends o to the log.
func (l *PairLog) Add(o *PairOutcome) error {
	if l.err != nil {
		return l.err
	}
	b, err := json.Marshal(o)
	if err == nil {
		b = append(b, '\n')
		_, err = l.full.w.Write(b)
	}
	if err == nil {
		_, err = l.light.w.Write(l.record(o))
	}
	if err != nil {
		return l.fail(err)
	}
	l.n++
	if !o.OK() {
		l.failed++
	}
	return nil
}

// Flush hands what was added to the system, so that a rank 0 killed
// after it leaves every pair added in the file; the sweep flushes after
// each round.
func (l *PairLog) Flush() error {
	if l.err != nil {
		return l.err
	}
	for _, lf := range []*logFile{&l.full, &l.light} {
		if err := lf.w.Flush(); err != nil {
			return l.fail(err)
		}
	}
	return nil
}

// record is o without its result, in binary: round, src, dst (uint32),
// ok (a byte), elapsed ns (int64), the figures' count (uint16) and each
// figure's metric index (uint16) and value (float64 bits), the error's
// length (uint32) and bytes, then the result's caveats: their count
// (uint16) and each one's workload, unclean (a byte), samples (int64)
// and counters' verdict, the strings as a length (uint16) and bytes;
// little-endian.
func (l *PairLog) record(o *PairOutcome) []byte {
	b := make([]byte, 0, 4*3+1+8+2+10*len(o.Figures)+4+len(o.Error))
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(o.Round))
	b = le.AppendUint32(b, uint32(o.Src))
	b = le.AppendUint32(b, uint32(o.Dst))
	ok := byte(0)
	if o.OK() {
		ok = 1
	}
	b = append(b, ok)
	b = le.AppendUint64(b, uint64(o.ElapsedNS))
	b = le.AppendUint16(b, uint16(len(o.Figures)))
	for _, x := range o.Figures {
		i, seen := l.metrics[x.Metric]
		if !seen {
			i = uint16(len(l.names))
			l.metrics[x.Metric] = i
			l.names = append(l.names, x.Metric)
		}
		b = le.AppendUint16(b, i)
		b = le.AppendUint64(b, math.Float64bits(x.Value))
	}
	b = le.AppendUint32(b, uint32(len(o.Error)))
	b = append(b, o.Error...)
	cs := o.Caveats()
	b = le.AppendUint16(b, uint16(len(cs)))
	for _, c := range cs {
		b = appendString16(b, c.Workload)
		unclean := byte(0)
		if c.Unclean {
			unclean = 1
		}
		b = append(b, unclean)
		b = le.AppendUint64(b, uint64(c.Samples))
		b = appendString16(b, c.Counters)
	}
	return b
}

// appendString16 appends s's length (uint16) and bytes, cut to what the
// length can say.
func appendString16(b []byte, s string) []byte {
	s = s[:min(len(s), math.MaxUint16)]
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// readCaveats reads the caveats that end a record.
func readCaveats(br *bufio.Reader) ([]Caveat, error) {
	le := binary.LittleEndian
	var n [2]byte
	if _, err := io.ReadFull(br, n[:]); err != nil {
		return nil, err
	}
	var out []Caveat
	for range le.Uint16(n[:]) {
		var c Caveat
		var err error
		if c.Workload, err = readString16(br); err != nil {
			return nil, err
		}
		var fixed [9]byte
		if _, err := io.ReadFull(br, fixed[:]); err != nil {
			return nil, err
		}
		c.Unclean, c.Samples = fixed[0] == 1, int64(le.Uint64(fixed[1:]))
		if c.Counters, err = readString16(br); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func readString16(br *bufio.Reader) (string, error) {
	var n [2]byte
	if _, err := io.ReadFull(br, n[:]); err != nil {
		return "", err
	}
	b := make([]byte, binary.LittleEndian.Uint16(n[:]))
	if _, err := io.ReadFull(br, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// Each calls fn with every pair logged, in the order added, one at a time
// and without its result; it stops at fn's first error and returns it, or
// the log's. The outcome passed is reused from one call to the next.
func (l *PairLog) Each(fn func(*PairOutcome) error) error {
	r, err := l.open(&l.light)
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	var o PairOutcome
	var head [4*3 + 1 + 8 + 2]byte
	le := binary.LittleEndian
	for i := 0; i < l.n; i++ {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return l.fail(fmt.Errorf("pair %d of %d: %w", i+1, l.n, err))
		}
		o = PairOutcome{Round: int(le.Uint32(head[0:])), Src: int(le.Uint32(head[4:])), Dst: int(le.Uint32(head[8:])),
			Status: StatusFailed, ElapsedNS: int64(le.Uint64(head[13:])), Figures: o.Figures[:0]}
		if head[12] == 1 {
			o.Status = StatusOK
		}
		nf := int(le.Uint16(head[21:]))
		var fig [10]byte
		for range nf {
			if _, err := io.ReadFull(br, fig[:]); err != nil {
				return l.fail(fmt.Errorf("pair %d of %d: %w", i+1, l.n, err))
			}
			o.Figures = append(o.Figures, Figure{Metric: l.names[le.Uint16(fig[0:])], Value: math.Float64frombits(le.Uint64(fig[2:]))})
		}
		var n [4]byte
		if _, err := io.ReadFull(br, n[:]); err != nil {
			return l.fail(fmt.Errorf("pair %d of %d: %w", i+1, l.n, err))
		}
		if e := le.Uint32(n[:]); e > 0 {
			msg := make([]byte, e)
			if _, err := io.ReadFull(br, msg); err != nil {
				return l.fail(fmt.Errorf("pair %d of %d: %w", i+1, l.n, err))
			}
			o.Error = string(msg)
		}
		if len(o.Figures) == 0 {
			o.Figures = nil
		}
		cs, err := readCaveats(br)
		if err != nil {
			return l.fail(fmt.Errorf("pair %d of %d: %w", i+1, l.n, err))
		}
		o.caveats, o.caveatsRead = cs, true
		if err := fn(&o); err != nil {
			return err
		}
	}
	return nil
}

// EachFull calls fn with every pair logged, result included, as Each
// does.
func (l *PairLog) EachFull(fn func(*PairOutcome) error) error {
	r, err := l.open(&l.full)
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	for i := 0; i < l.n; i++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			return l.fail(fmt.Errorf("pair %d of %d: %w", i+1, l.n, err))
		}
		var o PairOutcome
		if err := json.Unmarshal(line, &o); err != nil {
			return l.fail(fmt.Errorf("pair %d of %d: %w", i+1, l.n, err))
		}
		if err := fn(&o); err != nil {
			return err
		}
	}
	return nil
}

// open flushes what was written to lf and opens its file for reading.
func (l *PairLog) open(lf *logFile) (*os.File, error) {
	if l.err != nil {
		return nil, l.err
	}
	if lf.f == nil {
		return nil, l.fail(errors.New("removed"))
	}
	if err := lf.w.Flush(); err != nil {
		return nil, l.fail(err)
	}
	r, err := os.Open(lf.f.Name())
	if err != nil {
		return nil, l.fail(err)
	}
	return r, nil
}

// Remove closes the log and removes its files; safe to call again.
func (l *PairLog) Remove() error {
	if l == nil {
		return nil
	}
	var errs []error
	for _, lf := range []*logFile{&l.full, &l.light} {
		if lf.f == nil {
			continue
		}
		errs = append(errs, lf.f.Close())
		if err := os.Remove(lf.f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		lf.f = nil
	}
	return errors.Join(errs...)
}
