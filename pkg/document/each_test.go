package document_test

import (
	"context"
	"errors"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// TestEachStopsOnContext: Each hands over no document once ctx has
// ended, and returns ctx's cause.
func TestEachStopsOnContext(t *testing.T) {
	cause := errors.New("interrupt received")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	n := 0
	err := document.Each(ctx, nil, func(*document.Document) error { n++; return nil }, "../../cmd/rdma-bench/testdata/compare/base.json")
	if !errors.Is(err, cause) || n != 0 {
		t.Fatalf("Each after cancel: %v, %d documents, want %v and none", err, n, cause)
	}
}
