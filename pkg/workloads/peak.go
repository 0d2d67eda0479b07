package workloads

// peakTracker finds the highest bandwidth over any window of w
// consecutive signalled completions, from (time, cumulative operations)
// points, in bounded memory.
type peakTracker struct {
	w     int
	size  int
	ring  []peakPoint
	n     int
	bestG float64 // Gb/s
}

type peakPoint struct {
	ns  int64
	ops uint64
}

func newPeakTracker(w, size int) peakTracker {
	return peakTracker{w: w, size: size, ring: make([]peakPoint, w+1)}
}

func (p *peakTracker) add(ns int64, ops uint64) {
	if len(p.ring) == 0 {
		return
	}
	p.ring[p.n%len(p.ring)] = peakPoint{ns, ops}
	p.n++
	if p.n <= p.w {
		return
	}
	old := p.ring[(p.n-1-p.w)%len(p.ring)]
	if dt := ns - old.ns; dt > 0 {
		g := float64(ops-old.ops) * float64(p.size) * 8 / float64(dt)
		p.bestG = max(p.bestG, g)
	}
}

// gbps is the peak, or 0 when the run was shorter than one window.
func (p *peakTracker) gbps() float64 { return p.bestG }
