package fabric

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestProbePass: a probe pass of 4 ranks where pair 0->3 is 5x worse
// once: no pair is a suspect and none is re-measured (one sample a pair
// is no figure to compare), the document is marked a probe, the table
// prints no matrix, and the findings say every pair was probed; the exit
// status is 0.
func TestProbePass(t *testing.T) {
	w := newWorld(t, 4)
	w.cfg.Probe = true
	w.measurers[0].factor = transient(3)
	doc := runRecheck(t, w)
	if !doc.Probe || len(doc.Suspects) != 0 || doc.Recheck != nil || doc.PairCount() != 12 || doc.FailedCount() != 0 {
		t.Fatalf("probe %v, suspects %+v, recheck %+v, %d pairs, %d failed", doc.Probe, doc.Suspects, doc.Recheck, doc.PairCount(), doc.FailedCount())
	}
	var b bytes.Buffer
	if err := WriteTable(&b, doc, []string{"lat.p50_us", "bw_gbps"}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, "\nprobe: each pair connected and made one round trip of ") || strings.Contains(text, "rows measure") ||
		!strings.HasSuffix(text, "no failed pair: 12 pairs probed\n") {
		t.Errorf("table:\n%s", text)
	}
	if ExitStatus(doc) != 0 {
		t.Errorf("exit status %d", ExitStatus(doc))
	}
}

// TestProbeFails: a probe where every measurement by rank 1 fails at
// once: its servers (rank 0's own serving among them) are told to stop
// rather than wait out the 20 s pair timeout, so the probe ends in
// seconds; the failed pairs are named, the summary counts them as failing
// the probe, and the exit status is 1.
func TestProbeFails(t *testing.T) {
	w := newWorld(t, 3)
	w.cfg.Probe = true
	w.cfg.PairTimeout = 20 * time.Second
	w.measurers[1].hook = func(_ context.Context, _ int, role string, _ int) error {
		if role == roleMeasure {
			return errors.New("connect: connection refused")
		}
		return nil
	}
	began := time.Now()
	doc := runRecheck(t, w)
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the probe took %s: the servers waited out the pair timeout", took)
	}
	if n := doc.FailedCount(); n != 2 || ExitStatus(doc) != 1 {
		t.Fatalf("%d failed, exit %d", n, ExitStatus(doc))
	}
	for _, p := range doc.Pairs {
		if p.Src == 1 && !strings.Contains(p.Error, "connection refused; serve on ") || p.Src == 1 && !strings.Contains(p.Error, errAbandoned.Error()) {
			t.Errorf("%d->%d: %q", p.Src, p.Dst, p.Error)
		}
	}
	if s := Summary(doc); !strings.HasSuffix(s, " pairs failed the probe") {
		t.Errorf("summary %q", s)
	}
}
