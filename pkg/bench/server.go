package bench

import (
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/perftestflags"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// CheckServer checks, before the server listens, what it would refuse at
// its first client: with a workload (which pins what clients may run),
// that workload's point as given, against the device and the memory;
// without one, the device, port and GID named and --odp. It returns the
// handshake keys the server pins. Bad input is an bad input (package inputerr); a device
// that cannot be opened, the device's error.
func (b *Flags) CheckServer(workload string) ([]string, error) {
	keys := b.ExplicitKeys()
	if workload != "" {
		// A workload pins what clients may run: check what was given
		// for it now, not at the first client.
		w, err := LookupWorkload(workload)
		if err != nil {
			return nil, err
		}
		b.Spec.Workload = w.Name
		r, _, err := workloads.Resolve(b.Spec, nil)
		if err != nil {
			return nil, inputError("%v", err)
		}
		if w.Family == catalog.RDMA {
			_, lim, err := workloads.Probe(r, b.Local)
			if err != nil {
				return nil, err
			}
			if err := workloads.CheckDevice(r, b.Local, w, lim); err != nil {
				return nil, inputError("%v", err)
			}
		}
		if err := b.Local.CheckMemory(workloads.MemoryOf(r, false, 1), "server"); err != nil {
			return nil, inputError("%v", err)
		}
		keys = append(keys, "workload")
	} else if b.Spec.Iterations != 0 && b.Spec.Duration != 0 {
		return nil, inputError("-n (iterations) and -D (duration) cannot go together: choose one")
	} else if b.fs.Changed("ib-dev") || b.fs.Changed("ib-port") || b.fs.Changed("gid-index") || b.Local.ODP {
		// No workload: the device, port and GID named (and --odp) are
		// still checked now, not at the first client.
		probe, _, err := workloads.Resolve(point.NewSpec("write_lat"), nil)
		var lim workloads.DeviceLimits
		if err == nil {
			_, lim, err = workloads.Probe(probe, b.Local)
		}
		if err != nil {
			return nil, err
		}
		if b.Local.ODP {
			return nil, inputError("%v", workloads.CheckODPDevice(lim))
		}
	}
	if err := b.Local.CheckCPUs(1); err != nil {
		return nil, inputError("%v", err)
	}
	dev := b.Local.Device
	if names, _ := verbs.DeviceNames(); dev == "" && len(names) > 0 {
		dev = names[0] // the device the server opens (verbs.Open)
	}
	var err error
	b.Local, err = place(b.Local, dev)
	return keys, err
}

// LookupWorkload finds the workload called name; a name of perftest's
// (raw_ethernet_bw, ib_write_bw) is refused saying what rdma-bench offers.
func LookupWorkload(name string) (catalog.Workload, error) {
	w, err := catalog.Lookup(name)
	if err != nil {
		if h := perftestflags.Workload(name); h != "" {
			return w, inputError("%v; %s", err, h)
		}
		return w, inputError("%v", err)
	}
	return w, nil
}
