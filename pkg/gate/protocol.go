package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The worker protocol: `rdma-bench worker` keeps one side's binary
// running between the gate's runs. It speaks newline-delimited JSON on
// its standard input and output, one object a line: first a [Hello] from
// the worker, then, for every [Request] the gate writes, one [Reply]. The
// worker ends at the end of its input. A pipe to a child process is not
// the control connection of a run (pkg/exchange: framed messages between
// two hosts, with deadlines on a socket); a line of JSON with a protocol
// number in the hello is all this one needs.

// WorkerProtocol is the version of the worker protocol. A worker whose
// hello names another is not used: the gate runs that side, and the other,
// as a process per run.
const WorkerProtocol = 1

// WorkerCommand is the subcommand that serves the protocol.
const WorkerCommand = "worker"

// Hello is the worker's first line.
type Hello struct {
	Worker   string `json:"worker"` // ToolName: "rdma-bench"
	Protocol int    `json:"protocol"`
	Version  string `json:"version"` // what `version` prints
}

// Request asks for one run: Args are the arguments of `rdma-bench run`,
// as the gate would give them to a process of its own.
type Request struct {
	ID   int      `json:"id"`
	Args []string `json:"args"`
}

// Reply is one run's outcome: the exit status the run command would have
// ended with, the message it would have printed, and what it wrote on
// standard output (the run's JSON document).
type Reply struct {
	ID     int    `json:"id"`
	Exit   int    `json:"exit"`
	Error  string `json:"error,omitempty"`
	Stdout string `json:"stdout"`
}

// maxLine bounds one line of the protocol: a reply holds a one-point
// document, a few tens of kilobytes.
const maxLine = maxOutput + 4096

// EncodeLine writes v as one line of JSON.
func EncodeLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding a worker message: %w", err)
	}
	return append(b, '\n'), nil
}

// DecodeLine reads one line into v, strictly: an unknown key, a second
// value or trailing text is an error, so that a message of another
// protocol version is refused rather than half read.
func DecodeLine(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("a worker message that is not protocol %d: %w", WorkerProtocol, err)
	}
	if dec.More() {
		return errors.New("a worker message with trailing text")
	}
	return nil
}
