//go:build unix

package report

import (
	"fmt"
	"syscall"
)

// processTimes returns the user and system CPU time of the whole process.
func processTimes() (userNS, sysNS int64, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, fmt.Errorf("getrusage: %w", err)
	}
	return ru.Utime.Nano(), ru.Stime.Nano(), nil
}
