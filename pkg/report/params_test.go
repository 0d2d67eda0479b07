package report

import (
	"encoding/json"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
)

// TestEveryParamHasARole: every key a result's params can carry is a row
// of the parameter table (package catalog), which says whether it names
// the point, is part of its identity or is a setting; and every row's
// document key is one the writer puts there. A parameter cannot reach the
// document without that decision.
func TestEveryParamHasARole(t *testing.T) {
	b, err := json.Marshal(Params{Atomic: "fadd", PostAPI: "ex", SRQ: true, Mcast: true,
		McastGroups: []string{"ff0e::1"}, PageBytes: 4096, Loaders: 1, Extra: map[string]string{"a": "b"}})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for k := range keys {
		if p, ok := catalog.LookupParam(k); !ok || p.Role == catalog.RoleUndecided {
			t.Errorf("params key %q has no row with a role in catalog's parameter table", k)
		}
	}
	for _, p := range catalog.Params() {
		if _, ok := keys[p.Doc]; p.Doc != "" && !ok {
			t.Errorf("catalog parameter %q is not a key of report.Params", p.Doc)
		}
	}
}
