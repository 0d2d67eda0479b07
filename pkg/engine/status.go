package engine

/*
#include "status.h"
*/
import "C"

// Status says why a measured loop's call returned, Engine and SockLoop
// alike (status.h). The statuses past StatusStopped come with an error.
type Status int

// Loop call outcomes.
const (
	StatusDone     Status = C.RB_OK
	StatusFull     Status = C.RB_FULL // sample buffer full or a tick due: call again
	StatusDeadline Status = C.RB_DEADLINE
	StatusStopped  Status = C.RB_STOPPED
	StatusIdle     Status = C.RB_IDLE
	StatusEOF      Status = C.RB_EOF       // socket: the peer ended the stream
	StatusFailed   Status = C.RB_SYS_ERROR // socket: a system call failed
)
