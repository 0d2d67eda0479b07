package gate

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// Load is what else ran on the machine while the gate measured: the user
// CPU time of every process but the gate's own (its runs, its workers),
// and the time the hypervisor took the CPUs away (steal), from
// /proc/stat. Other processes' system time is not counted: soft-RoCE does
// the gate's own packet work in the kernel, outside any process. Inside a
// software-emulated VM the host's load is invisible here; it shows only
// in the pairs' spread.
type Load struct {
	Seconds float64 `json:"seconds"`
	CPUs    int     `json:"cpus"`
	// OthersUserSeconds is other processes' user CPU time; OthersCPUs the
	// same per second of the gate (1.0: a whole CPU busy all along).
	OthersUserSeconds float64 `json:"others_user_seconds"`
	OthersCPUs        float64 `json:"others_cpus"`
	StealSeconds      float64 `json:"steal_seconds"`
	// Error says why it could not be read ("" when it was).
	Error string `json:"error,omitempty"`
}

// busyNote is the share of one CPU that other processes must take for the
// gate to say so.
const busyNote = 0.10

// Note says, when others took a tenth of a CPU or more, or steal was
// seen, that the pairs' spread may be theirs; "" otherwise.
func (l *Load) Note() string {
	if l == nil || l.Error != "" || l.Seconds <= 0 {
		return ""
	}
	var parts []string
	if l.OthersCPUs >= busyNote {
		parts = append(parts, fmt.Sprintf("other processes took %.2f of the %d CPUs (user time) while the gate measured", l.OthersCPUs, l.CPUs))
	}
	if steal := l.StealSeconds / l.Seconds; steal >= busyNote/10 {
		parts = append(parts, fmt.Sprintf("the hypervisor took %.1f%% of the CPUs' time (steal)", 100*steal/float64(max(l.CPUs, 1))))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ": the pairs' spread may be theirs, and a quieter machine would decide sooner"
}

// loadMark is one reading: the machine's user and steal time, and the
// gate's own user time, in seconds.
type loadMark struct {
	at                time.Time
	user, steal, ours float64
	cpus              int
	err               error
}

// markLoad reads the machine's times and the user time of this process,
// its waited-for children, and the live processes pids (the workers).
func markLoad(pids []int) loadMark {
	m := loadMark{at: time.Now()}
	b, err := os.ReadFile("/proc/stat")
	var ps report.ProcStat
	if err == nil {
		ps, err = report.ParseProcStat(b)
	}
	if err != nil {
		m.err = err
		return m
	}
	m.user, m.steal, m.cpus = float64(ps.UserTicks)/report.UserHZ, float64(ps.StealTicks)/report.UserHZ, ps.CPUs
	var ru syscall.Rusage
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		if syscall.Getrusage(who, &ru) == nil {
			m.ours += float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6
		}
	}
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// After the command's closing parenthesis: state is field 3,
		// utime field 14.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 11 {
				m.ours += ticks(f[11]) / report.UserHZ
			}
		}
	}
	return m
}

func ticks(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// loadBetween is what others took between two readings.
func loadBetween(a, b loadMark) *Load {
	l := &Load{Seconds: b.at.Sub(a.at).Seconds(), CPUs: b.cpus}
	switch {
	case a.err != nil:
		l.Error = a.err.Error()
	case b.err != nil:
		l.Error = b.err.Error()
	default:
		l.OthersUserSeconds = max(0, (b.user-a.user)-(b.ours-a.ours))
		l.StealSeconds = max(0, b.steal-a.steal)
		if l.Seconds > 0 {
			l.OthersCPUs = l.OthersUserSeconds / l.Seconds
		}
	}
	return l
}
