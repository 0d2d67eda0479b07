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
// worker ends at the end of its input.
//
// Protocol 2 adds held runs: a [Request] with Hold set is answered first
// by a [Reply] naming its stage (Stage "ready": set up, nothing running),
// after which the worker waits for a [Go] naming that stage; then by one
// naming "measured" (the timed part over), waiting again for its [Go];
// then by its final Reply. A run that fails before a stage answers with
// its final Reply at once. The end of the input releases a held run: one
// held at "ready" ends unmeasured, one at "measured" is reported. A pipe to a child process is not
// the control connection of a run (pkg/exchange: framed messages between
// two hosts, with deadlines on a socket); a line of JSON with a protocol
// number in the hello is all this one needs.

// WorkerProtocol is the version of the worker protocol. A worker whose
// hello names another is not used: the gate runs that side, and the other,
// as a process per run. A worker of protocol 1 (without held runs) is
// used, its runs and the other side's made one after the other.
const WorkerProtocol = 2

// workerProtocols are the protocols this gate can use.
var workerProtocols = []int{1, WorkerProtocol}

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
	// Hold asks for a held run (protocol 2): it waits at each stage for
	// a [Go].
	Hold bool `json:"hold,omitempty"`
}

// The stages of a held run, in order: workloads.HoldReady and
// workloads.HoldMeasured, which the worker reports as they are.
const (
	StageReady    = "ready"
	StageMeasured = "measured"
)

// Go lets a held run go on from the stage it names.
type Go struct {
	ID int    `json:"id"`
	Go string `json:"go"`
}

// Reply is one run's outcome: the exit status the run command would have
// ended with, the message it would have printed, and what it wrote on
// standard output (the run's JSON document).
type Reply struct {
	ID int `json:"id"`
	// Stage, in a held run's replies before its last, is the stage it
	// waits at (StageReady, then StageMeasured); the other
	// fields are then empty.
	Stage  string `json:"stage,omitempty"`
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
