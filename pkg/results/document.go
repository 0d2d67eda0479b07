package results

import "github.com/rdma-bench/rdma-bench/pkg/document"

// The saved document's types and rules are pkg/document's; this package
// analyses the values it reads.
type (
	Document = document.Document
	Result   = document.Result
	Run      = document.Run
	Figures  = document.Figures
	Latency  = document.Latency
	Costs    = document.Costs
	CPUUsage = document.CPUUsage
	CPUPair  = document.CPUPair
	Counters = document.Counters
	Tool     = document.Tool
	Host     = document.Host
	Device   = document.Device
)

// Kinds of result, and statuses.
const (
	KindLatency        = document.KindLatency
	KindBandwidth      = document.KindBandwidth
	StatusOK           = document.StatusOK
	StatusPartial      = document.StatusPartial
	StatusInsufficient = document.StatusInsufficient
)

// FormatSize writes a message size as the labels do (see
// [document.FormatSize]).
func FormatSize(n int) string { return document.FormatSize(n) }

// The readers of pkg/document, for this package's callers.
var (
	Load       = document.Load
	LoadNoting = document.LoadNoting
	ReadFile   = document.ReadFile
	Parse      = document.Parse
)

// OtherKindError is a document of another kind (see pkg/document).
type OtherKindError = document.OtherKindError
