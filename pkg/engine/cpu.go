package engine

/*
#include "cpu.h"
*/
import "C"

import "unsafe"

// CPUMark is one CPU reading taken in C: the measuring clock (Now), the
// process's CPU time over all threads, and the first line of /proc/stat
// (the machine's CPU time; empty when it could not be read).
type CPUMark struct {
	WallNS        int64
	UserNS, SysNS int64
	ProcStatCPU   string
}

// SampleCPU takes a reading now.
func SampleCPU() CPUMark {
	var c C.struct_rb_cpu
	C.rb_cpu_take(&c)
	return markOf(&c)
}

func markOf(c *C.struct_rb_cpu) CPUMark {
	return CPUMark{
		WallNS:      int64(c.wall_ns),
		UserNS:      int64(c.user_ns),
		SysNS:       int64(c.sys_ns),
		ProcStatCPU: C.GoString((*C.char)(unsafe.Pointer(&c.stat[0]))),
	}
}

// window returns a loop's CPU window, when it opened and closed.
func window(w *C.struct_rb_window) (start, end CPUMark, ok bool) {
	if w.start.taken == 0 || w.end.taken == 0 {
		return CPUMark{}, CPUMark{}, false
	}
	return markOf(&w.start), markOf(&w.end), true
}
