package catalog

import "testing"

// TestParamTable: every row decides its role, keys and flags are unique,
// and the identity parameters fit a point's key.
func TestParamTable(t *testing.T) {
	keys, docs, flags, shorts := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range Params() {
		name := p.Key + p.Doc
		if p.Role == RoleUndecided {
			t.Errorf("parameter %s has no role: say whether it is the point, its identity or a setting", name)
		}
		if p.Key == "" && p.Doc == "" {
			t.Errorf("a row has neither a handshake key nor a document key")
		}
		if p.Key == "" && p.Flag != "" {
			t.Errorf("flag --%s has no handshake key", p.Flag)
		}
		for _, dup := range []struct {
			seen map[string]bool
			v    string
		}{{keys, p.Key}, {docs, p.Doc}, {flags, p.Flag}, {shorts, p.Short}} {
			if dup.v != "" && dup.seen[dup.v] {
				t.Errorf("%q is declared twice", dup.v)
			}
			dup.seen[dup.v] = true
		}
	}
	if n := len(IdentityParams()); n > IdentityCap {
		t.Errorf("%d identity parameters, more than IdentityCap (%d)", n, IdentityCap)
	}
}
func TestIsTCP(t *testing.T) {
	for _, c := range []struct {
		workload, transport string
		want                bool
	}{{"tcp_lat", "TCP", true}, {"tcp_bw", "", true}, {"write_lat", "RC", false}, {"future_lat", "TCP", true}, {"future_lat", "RC", false}} {
		if got := IsTCP(c.workload, c.transport); got != c.want {
			t.Errorf("IsTCP(%q, %q) = %v", c.workload, c.transport, got)
		}
	}
}
