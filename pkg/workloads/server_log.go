package workloads

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// The server's log is rate-limited, kind by kind: a flood of connections
// (thousands a second) must not turn into thousands of lines a second.
const (
	// logInterval is the window of each kind's budget.
	logInterval = 10 * time.Second
	// maxAddrsNamed bounds the addresses a summary counts.
	maxAddrsNamed = 1000
)

// Kinds of log lines, each with its own budget of lines per logInterval.
var logBudgets = map[string]int{
	"served":  60, // one per run, and runs are one at a time
	"failed":  60,
	"refused": 5, // a client told no: token, busy, parameters
	"dropped": 5, // a connection closed before its hello: silent, junk, evicted
	"accept":  5, // the listener failing (out of file descriptors, ...)
}

// serverLog writes the server's log lines: in each logInterval, the first
// lines of a kind as they come, the rest counted and summed up in one line
// at the interval's end ("N more connections dropped in the last 10s, from M
// addresses").
type serverLog struct {
	w        io.Writer
	interval time.Duration // logInterval; tests shorten it

	mu     sync.Mutex
	kinds  map[string]*logWindow
	closed bool
}

// logWindow is one kind's current interval.
type logWindow struct {
	start      time.Time
	lines      int                 // written in this interval
	suppressed int                 // counted, not written
	addrs      map[string]struct{} // the hosts of the suppressed lines
	timer      *time.Timer         // writes the summary at the interval's end
}

func newServerLog(w io.Writer) *serverLog {
	return &serverLog{w: w, interval: logInterval, kinds: map[string]*logWindow{}}
}

// printf writes a line of kind about host (the peer's address, counted in
// a summary), or counts it when the kind's budget is spent.
func (l *serverLog) printf(kind, host, format string, a ...any) {
	if l == nil || l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	now := time.Now()
	win := l.kinds[kind]
	if win == nil || now.Sub(win.start) >= l.interval {
		l.flush(kind) // the interval is over: its summary first
		win = &logWindow{start: now}
		l.kinds[kind] = win
	}
	if win.lines < logBudgets[kind] {
		win.lines++
		fmt.Fprintf(l.w, format+"\n", a...)
		return
	}
	if win.suppressed == 0 {
		win.addrs = map[string]struct{}{}
		win.timer = time.AfterFunc(win.start.Add(l.interval).Sub(now), func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.kinds[kind] == win {
				l.flush(kind)
				delete(l.kinds, kind)
			}
		})
	}
	win.suppressed++
	if len(win.addrs) < maxAddrsNamed {
		win.addrs[host] = struct{}{}
	}
}

// flush writes kind's summary, if lines were suppressed; l.mu is held.
func (l *serverLog) flush(kind string) {
	win := l.kinds[kind]
	if win == nil || win.suppressed == 0 {
		return
	}
	win.timer.Stop()
	from := fmt.Sprintf("%d addresses", len(win.addrs))
	switch {
	case len(win.addrs) == 1:
		for a := range win.addrs {
			from = a
		}
	case len(win.addrs) >= maxAddrsNamed:
		from = fmt.Sprintf("%d or more addresses", maxAddrsNamed)
	}
	fmt.Fprintf(l.w, "%d more %s in the last %v, from %s\n", win.suppressed, summaries[kind], time.Since(win.start).Round(100*time.Millisecond), from)
	win.suppressed = 0
}

// summaries name each kind's suppressed lines.
var summaries = map[string]string{
	"served":  "runs served",
	"failed":  "runs failed",
	"refused": "clients refused",
	"dropped": "connections dropped",
	"accept":  "failures to accept a connection",
}

// close writes every pending summary; later lines are discarded.
func (l *serverLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for kind := range l.kinds {
		l.flush(kind)
	}
	l.closed = true
}
