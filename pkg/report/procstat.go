package report

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// UserHZ is the unit of /proc/stat's and /proc/PID/stat's times: USER_HZ,
// 100 on every Linux architecture the kernel exports it for.
const UserHZ = 100

// ProcStat is the system-wide CPU time from the aggregate "cpu" line of
// /proc/stat, in clock ticks (USER_HZ) since boot.
type ProcStat struct {
	// BusyTicks is user + nice + system + irq + softirq + steal. Guest time
	// is already included in user and nice, so it is not added again.
	BusyTicks uint64
	// IdleTicks is idle + iowait.
	IdleTicks uint64
	// UserTicks is user + nice (guest time included); StealTicks is
	// steal, the time a hypervisor ran something else on the CPUs.
	UserTicks, StealTicks uint64
	// CPUs is the number of per-CPU "cpuN" lines (online CPUs).
	CPUs int
}

// /proc/stat "cpu" line field positions (after the label).
const (
	statUser = iota
	statNice
	statSystem
	statIdle
	statIOWait
	statIRQ
	statSoftIRQ
	statSteal
	statFields // guest and guest_nice follow, and are part of user/nice
)

// ParseProcStat parses the content of /proc/stat. Fields missing on old
// kernels (iowait, irq, softirq, steal) count as zero; at least user, nice,
// system and idle are required.
func ParseProcStat(data []byte) (ProcStat, error) {
	var ps ProcStat
	found := false
	// Not bufio.Scanner: the "intr" line can exceed its token limit.
	for line := range bytes.Lines(data) {
		if !bytes.HasPrefix(line, []byte("cpu")) {
			continue
		}
		fields := strings.Fields(string(line))
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "cpu") {
			continue
		}
		label := fields[0]
		if label != "cpu" {
			if _, err := strconv.Atoi(label[3:]); err == nil {
				ps.CPUs++
			}
			continue
		}
		if found {
			return ProcStat{}, errors.New("parse /proc/stat: duplicate aggregate cpu line")
		}
		found = true
		vals := fields[1:]
		if len(vals) < statIOWait {
			return ProcStat{}, fmt.Errorf("parse /proc/stat: aggregate cpu line has %d fields, want at least %d", len(vals), statIOWait)
		}
		var t [statFields]uint64
		for i := 0; i < statFields && i < len(vals); i++ {
			v, err := strconv.ParseUint(vals[i], 10, 64)
			if err != nil {
				return ProcStat{}, fmt.Errorf("parse /proc/stat: field %d: %w", i+1, err)
			}
			t[i] = v
		}
		ps.BusyTicks = t[statUser] + t[statNice] + t[statSystem] + t[statIRQ] + t[statSoftIRQ] + t[statSteal]
		ps.IdleTicks = t[statIdle] + t[statIOWait]
		ps.UserTicks, ps.StealTicks = t[statUser]+t[statNice], t[statSteal]
	}
	if !found {
		return ProcStat{}, errors.New("parse /proc/stat: no aggregate cpu line")
	}
	return ps, nil
}
