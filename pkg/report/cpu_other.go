//go:build !unix

package report

import "errors"

// processTimes is unsupported off unix.
func processTimes() (userNS, sysNS int64, err error) {
	return 0, 0, errors.New("process cpu time is not supported on this system")
}
