// Package display is how every view of rdma-bench writes what it shows:
// a figure and its significant digits, a change and its interval, a
// message size, the caveat marks and their footnotes, the warning of a
// latency at the scheduler's tick, what a latency measures, the ASCII
// table and the error-keeping writer. The run and suite tables, the HTML
// report, compare, the gate, history, fabric and the charts all write
// through it, so that one figure reads the same in every view.
//
// It imports nothing of the project and no cgo: a reader of saved
// documents never needs the measuring packages to show them.
package display
