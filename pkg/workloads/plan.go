package workloads

// role is the side of a run: the client initiates, the server answers.
type role int

const (
	client role = iota
	server
)

func (r role) String() string { return [...]string{"client", "server"}[r] }

// plan is what one side does in a run. Each worker first runs its active
// part (ping, or streaming sends), then, once every worker is done and the
// peer has been told, its passive part (answering pings, taking receives)
// until the peer says it is done too.
type plan struct {
	ping      bool // latency initiator
	pong      bool // ping-pong responder
	send      bool // bandwidth sender
	recv      bool // takes receives while streaming, and after
	postRecvs bool // receives must be posted before the run starts
	// halve makes a latency sample half the round trip (ping-pong).
	halve bool
}

// planFor derives a side's plan from the workload.
func planFor(w Workload, c *Config, r role) plan {
	// A receive completion is needed for SEND, for write with immediate,
	// and for the write ping-pong in event mode (which uses immediates).
	needsRecv := w.Op == OpSend || (w.Op == OpWrite && (c.Imm || (c.Events && w.Latency())))
	pingPong := w.Op == OpWrite || w.Op == OpSend
	var p plan
	if w.Latency() {
		p.ping = r == client
		p.pong = r == server && pingPong
		p.halve = pingPong
		p.postRecvs = needsRecv
		return p
	}
	p.send = r == client || c.Bidir
	p.recv = needsRecv && (r == server || c.Bidir)
	p.postRecvs = p.recv
	return p
}

// validation says what a side checks after the run: the target region
// (what the peer wrote or sent), the local region (what it read), or the
// atomic target it read back.
type validation int

const (
	checkNothing validation = iota
	checkTarget
	checkLocal
	checkAtomic
)

func validationFor(w Workload, c *Config, r role) validation {
	active := r == client || c.Bidir
	switch w.Op {
	case OpWrite, OpSend:
		if w.Latency() || r == server || c.Bidir {
			return checkTarget
		}
	case OpRead:
		if active {
			return checkLocal
		}
	case OpAtomic:
		if r == client {
			return checkAtomic
		}
	}
	return checkNothing
}
