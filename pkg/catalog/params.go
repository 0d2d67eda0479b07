package catalog

// Param is one parameter of a point, a key of a result's params.
type Param struct {
	// Name is the params key, e.g. "qps".
	Name string
	// Identity is true when it changes what is measured: two results
	// differing in it are different points. The ways of running one
	// measurement (page_bytes, srq, post_api) are not identity: comparing
	// them is what they are for, and compare lists a parameter whose
	// values differ between the sides.
	Identity bool
	// Absent is the value a document written before the parameter
	// existed means by lacking it ("false": a switch was off); "" when
	// there is none.
	Absent string
	// Usual are the values a point's description leaves out (a parameter
	// with another value is named: "qps=4"); "" is a document lacking it.
	Usual []string
}

// params are the point's parameters that a comparison knows by name,
// identity first, in the order a description names them.
var params = []Param{
	{Name: "qps", Identity: true, Usual: []string{"", "0", "1"}},
	{Name: "threads", Identity: true, Usual: []string{"", "0", "1"}},
	{Name: "post_list", Identity: true, Usual: []string{"", "0", "1"}},
	{Name: "inline_bytes", Identity: true},
	{Name: "bidir", Identity: true, Absent: "false", Usual: []string{"", "false"}},
	{Name: "cq_mod", Identity: true},
	{Name: "tx_depth", Identity: true},
	{Name: "rx_depth", Identity: true},
	{Name: "imm", Identity: true, Absent: "false", Usual: []string{"", "false"}},
	{Name: "atomic", Identity: true, Usual: []string{"", "fadd"}},
	{Name: "mtu", Identity: true},
	{Name: "rdma_cm", Identity: true, Absent: "false", Usual: []string{"", "false"}},
	{Name: "rate", Identity: true, Absent: "0", Usual: []string{"", "0"}},
}

// PointParams are the params keys that name the point itself (workload,
// transport, completion, size) or its device: never listed as parameters
// that differ.
var PointParams = []string{"workload", "transport", "completion", "size_bytes", "device"}

// NumIdentity is the number of identity parameters.
const NumIdentity = 13

// IdentityParams are the names of the identity parameters, in the
// table's order.
func IdentityParams() []string {
	var out []string
	for _, p := range params {
		if p.Identity {
			out = append(out, p.Name)
		}
	}
	return out
}

// LookupParam returns the parameter called name, if the table has it.
func LookupParam(name string) (Param, bool) {
	for _, p := range params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}
