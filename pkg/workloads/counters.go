package workloads

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/counters"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// portWatch reads this side's RDMA port counters around the measured part
// (the warm-up included: the operations it posted are counted too). Its
// files are found and opened in the set-up (watchPort), so that the two
// snapshots around the measured part only read them.
type portWatch struct {
	w      *counters.Watch
	before counters.Snapshot
	err    error
}

// watchPort finds this side's port counters; nil for TCP or with
// --counters=false. Its caller closes it.
func (s *session) watchPort() *portWatch {
	d := s.side.deviceInfo()
	if !s.local.Counters || d == nil {
		return nil
	}
	w := &portWatch{}
	w.w, w.err = counters.NewReader(verbs.SysfsRoot).Watch(d.Name, d.Port)
	return w
}

// start takes the counters before the run.
func (w *portWatch) start() {
	if w != nil && w.err == nil {
		w.before = w.w.Take()
	}
}

// deltas takes the counters after the run and returns how they moved.
func (w *portWatch) deltas() (*counters.Deltas, string) {
	if w == nil {
		return nil, ""
	}
	if w.err != nil {
		return nil, w.err.Error()
	}
	d, err := counters.Diff(w.before, w.w.Take())
	if err != nil {
		return nil, err.Error()
	}
	return &d, ""
}

func (w *portWatch) close() {
	if w != nil && w.w != nil {
		w.w.Close()
	}
}

// judgeCounters is the client's account of both sides' counters: whether
// the run was clean, and whether the packets and bytes counted agree with
// what both sides posted.
func (s *session) judgeCounters(own, theirs figures) *report.NICCounters {
	if !s.local.Counters || s.w.Family != catalog.RDMA {
		return nil
	}
	c := &report.NICCounters{}
	sides := []struct {
		name string
		f    figures
	}{{"client", own}}
	shared := s.local.loopback || samePort(own, theirs)
	if !shared {
		sides = append(sides, struct {
			name string
			f    figures
		}{"server", theirs})
	}
	clean, available := true, false
	var verdicts []string
	for _, sd := range sides {
		if sd.f.Counters == nil {
			why := sd.f.CountersError
			if why == "" {
				why = "not read"
			}
			verdicts = append(verdicts, sd.name+": counters unavailable: "+why)
			continue
		}
		v := sd.f.Counters.Clean()
		available = available || v.Available
		clean = clean && v.Clean
		if !v.Clean {
			verdicts = append(verdicts, sd.name+": "+v.String())
		}
	}
	switch {
	case !available:
		c.Verdict = "counters unavailable: " + strings.Join(verdicts, "; ")
	case clean && len(verdicts) == 0:
		c.Clean, c.Verdict = &clean, "clean"
	default:
		c.Clean, c.Verdict = &clean, strings.Join(verdicts, "; ")
	}
	c.Local = marshalDeltas(own.Counters)
	if !shared {
		c.Remote = marshalDeltas(theirs.Counters)
	}
	if shared && !s.local.loopback && available {
		c.Verdict += " (server and client share this port: its counters count both, once)"
	}
	c.Wire = s.checkWire(own, theirs)
	return c
}

// samePort tells whether the two sides ran on one device port (two
// processes on one host): both then read the same counters, which count
// both sides' traffic, as in loopback.
func samePort(own, theirs figures) bool {
	a, b := own.Device, theirs.Device
	return a != nil && b != nil && a.Name != "" && a.Name == b.Name && a.Port == b.Port &&
		own.Host.Hostname != "" && own.Host.Hostname == theirs.Host.Hostname
}

func marshalDeltas(d *counters.Deltas) json.RawMessage {
	if d == nil {
		return nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	return b
}

// checkWire compares the client's port counters with the wire model of
// what was posted: the client's operations, and for a ping-pong the
// server's answers (each side then requests and responds alike); "" when
// the run is one the model does not describe.
func (s *session) checkWire(own, theirs figures) string {
	d := own.Device
	if own.Counters == nil || d == nil || s.spec.Bidir || s.spec.Loaders > 0 || (s.spec.Validate && s.w.Op == catalog.OpAtomic) {
		return ""
	}
	w := counters.Workload{Transport: counters.Transport(s.spec.Transport), MessageBytes: int64(s.spec.Size),
		PathMTUBytes: d.MTU, Ops: int64(own.Posted), Acks: counters.AcksAny}
	switch s.w.Op {
	case catalog.OpWrite:
		w.Op = counters.OpWrite
		if s.spec.Imm {
			w.Op = counters.OpWriteImm
		}
	case catalog.OpRead:
		w.Op = counters.OpRead
	case catalog.OpSend:
		w.Op = counters.OpSend
	case catalog.OpAtomic:
		w.Op = counters.OpAtomic
	}
	switch {
	case d.LinkLayer == "InfiniBand":
		w.Link = counters.LinkIB
	case d.GIDType == "RoCE v2" && strings.HasPrefix(d.GID, "::ffff:"):
		w.Link = counters.LinkRoCEv2IPv4
	case d.GIDType == "RoCE v2":
		w.Link = counters.LinkRoCEv2IPv6
	default:
		return ""
	}
	if d.Driver == "rdma_rxe" {
		w.Acks = counters.AcksRXE
	}
	role := counters.RoleRequester
	if s.w.Latency() && s.w.PingPong() {
		role = counters.RoleLoopback // this side pings and answers pongs alike
	}
	var peers []counters.Deltas
	if s.local.loopback || samePort(own, theirs) {
		// One port sees both sides: the server's answers, or the
		// responses, are on it too.
		if role == counters.RoleLoopback {
			w.Ops += int64(theirs.Posted)
		}
		role = counters.RoleLoopback
	} else if theirs.Counters != nil {
		peers = append(peers, *theirs.Counters)
	}
	e, err := counters.Expect(w)
	if err != nil {
		return fmt.Sprintf("not checked: %v", err)
	}
	rep, err := e.Check(role, *own.Counters, peers...)
	if err != nil {
		return fmt.Sprintf("not checked: %v", err)
	}
	return rep.String()
}
