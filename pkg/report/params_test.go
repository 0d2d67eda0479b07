package report

import (
	"encoding/json"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
)

// TestCatalogParamsAreKeys: every parameter the readers know by name
// (package catalog) is a key the writer puts in a result's params.
func TestCatalogParamsAreKeys(t *testing.T) {
	b, err := json.Marshal(Params{Atomic: "fadd"})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for _, n := range append(catalog.IdentityParams(), catalog.PointParams...) {
		if _, ok := keys[n]; !ok {
			t.Errorf("catalog parameter %q is not a key of report.Params", n)
		}
	}
}
