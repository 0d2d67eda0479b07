package document_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/gate"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// TestOtherDocumentsNamed: the gate's and fabric's documents, as their
// packages write them, are refused as what they are, not as results of
// an old schema (the gate's schema_version is 1) or of another tool
// (fabric's tool is a string).
func TestOtherDocumentsNamed(t *testing.T) {
	for _, c := range []struct {
		doc  any
		want string
	}{
		{gate.Document{Kind: document.KindGate, SchemaVersion: gate.SchemaVersion, Tool: report.Tool{Name: document.ToolName}},
			"a gate document: compare, plot and report read the documents of run and suite"},
		{fabric.Document{Envelope: document.Envelope{SchemaVersion: fabric.SchemaVersion, Kind: document.KindFabric}, Tool: fabric.Tool{Name: document.ToolName, Version: "0.3.0"}},
			"a fabric document: compare, plot and report read the documents of run and suite"},
	} {
		b, err := json.Marshal(c.doc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := document.Parse(b); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%T: got %v, want %s...", c.doc, err, c.want)
		}
	}
}
