package fabric

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Member is one rank of a run as it registered with rank 0.
type Member struct {
	// Rank is the member's rank, 0..size-1.
	Rank int `json:"rank"`
	// Hostname is the host the rank runs on.
	Hostname string `json:"hostname"`
	// Addr is the HOST:PORT of the rank's measurement listener, where its
	// Measurer serves.
	Addr string `json:"addr"`
	// Listeners are the HOST:PORT of every measurement listener when the
	// rank has more than one (ListenersFor: the incast pattern), Addr
	// first; nil for one.
	Listeners []string `json:"listeners,omitempty"`
	// Device is the RDMA device measured (mlx5_0, rxe0, ...).
	Device string `json:"device"`
	// DeviceWhy says why this device: "named by -d", "the only RDMA
	// device", ... (document.Device.Chosen); "" before it was kept.
	DeviceWhy string `json:"device_why,omitempty"`
	// GID is the device port's GID used, if any.
	GID string `json:"gid,omitempty"`
	// Port is the device's port number (1-based).
	Port int `json:"port"`
	// MTUBytes is the port's active MTU.
	MTUBytes int `json:"mtu_bytes"`
	// Version is the rdma-bench version the rank runs.
	Version string `json:"version"`
	// Params are the run's parameters (workloads, sizes, durations, ...)
	// that must be the same on every rank.
	Params map[string]string `json:"params,omitempty"`
	// ParamsHash is ParamsHash(Params), filled in by Rendezvous.
	ParamsHash string `json:"params_hash"`
}

// String names the member in messages: "rank 2 (host-c)".
func (m Member) String() string {
	if m.Hostname == "" {
		return fmt.Sprintf("rank %d", m.Rank)
	}
	return fmt.Sprintf("rank %d (%s)", m.Rank, m.Hostname)
}

// ListenerAddr is where listener i of the rank serves: Addr for 0, else
// Listeners[i]; false when it has no listener i.
func (m Member) ListenerAddr(i int) (string, bool) {
	switch {
	case i == 0:
		return m.Addr, true
	case i > 0 && i < len(m.Listeners):
		return m.Listeners[i], true
	}
	return "", false
}

// CanonicalParams is params as one canonical string: a JSON object with
// its keys sorted.
func CanonicalParams(params map[string]string) string {
	if params == nil {
		params = map[string]string{}
	}
	b, _ := json.Marshal(params) // a map of strings always encodes
	return string(b)
}

// ParamsHash is the first 16 hex digits of the SHA-256 of
// CanonicalParams(params): equal parameters give equal hashes.
func ParamsHash(params map[string]string) string {
	sum := sha256.Sum256([]byte(CanonicalParams(params)))
	return hex.EncodeToString(sum[:8])
}

// checkRegistration refuses a registration that cannot join rank 0's run:
// another world size, a rank out of range, another version or other
// parameters. Each error names the rank and both values.
func checkRegistration(self Member, size int, m *message) error {
	if m.Type != msgRegister || m.Member == nil {
		return fmt.Errorf("first message is %q, want a registration", m.Type)
	}
	r := *m.Member
	if r.Rank < 0 || r.Rank >= size {
		return fmt.Errorf("%s claims rank %d, outside 0..%d of rank 0's world of %d", orDash(r.Hostname), r.Rank, size-1, size)
	}
	if m.Size != size {
		return fmt.Errorf("%s was started with world size %d, rank 0 (%s) with %d: start every rank with the same size", r, m.Size, orDash(self.Hostname), size)
	}
	if r.Rank == self.Rank {
		return fmt.Errorf("rank %d claimed twice: by %s (%s) and by %s (%s, the coordinator)", r.Rank, orDash(r.Hostname), orDash(r.Addr), orDash(self.Hostname), orDash(self.Addr))
	}
	if r.Version != self.Version {
		return fmt.Errorf("%s runs rdma-bench version %q, rank 0 (%s) runs %q: run one version on every host", r, r.Version, orDash(self.Hostname), self.Version)
	}
	if ParamsHash(r.Params) != ParamsHash(self.Params) {
		return fmt.Errorf("%s runs with parameters other than rank 0's (%s): %s", r, orDash(self.Hostname), paramsDiff(r.Params, self.Params))
	}
	return nil
}

// paramsDiff lists the keys whose values differ: `size="64" (rank 0:
// "4096")`, or "unset" for a missing key.
func paramsDiff(theirs, ours map[string]string) string {
	keys := make([]string, 0, len(theirs)+len(ours))
	for k := range theirs {
		keys = append(keys, k)
	}
	for k := range ours {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var diffs []string
	show := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return fmt.Sprintf("%q", v)
		}
		return "unset"
	}
	for _, k := range keys {
		tv, tok := theirs[k]
		ov, ook := ours[k]
		if tok != ook || tv != ov {
			diffs = append(diffs, fmt.Sprintf("%s=%s (rank 0: %s)", k, show(theirs, k), show(ours, k)))
		}
	}
	return strings.Join(diffs, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
