package report

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// TestParamsOfCarriesEveryParam: a shared parameter whose document key is its
// handshake key reaches a result's params with the value the Spec holds;
// post_api is the exception: the document says how this side posted,
// which the RDMA side fills in once it knows (pkg/workloads/rdma_open.go).
func TestParamsOfCarriesEveryParam(t *testing.T) {
	for _, p := range point.Params() {
		if p.Doc == "" || p.Doc != p.Key || p.Key == "workload" || p.Key == "post_api" || p.Kind == catalog.ValueCompletion {
			continue
		}
		s := point.NewSpec("write_bw")
		v := map[catalog.ValueKind]string{catalog.ValueInt: "3", catalog.ValueBool: "true", catalog.ValueString: "x"}[p.Kind]
		if p.Kind == catalog.ValueEnum {
			v = p.Choices[len(p.Choices)-1]
		}
		if err := p.Value(&s).Set(v); err != nil {
			t.Fatalf("%s=%s: %v", p.Key, v, err)
		}
		rp := ParamsOf(s)
		b, _ := json.Marshal(rp)
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(doc[p.Doc]); got != s.Encode()[p.Key] {
			t.Errorf("%s: the document holds %q, the Spec %q: copy it in ParamsOf", p.Doc, got, s.Encode()[p.Key])
		}
	}
}
