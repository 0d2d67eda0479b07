package fabric

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Parse reads a saved fabric document (what Save and WriteJSON wrote):
// its kind must be [document.KindFabric] and its schema version one this
// package reads; an error names the key that is wrong.
func Parse(b []byte) (*Document, error) {
	if err := document.CheckHead(b, document.KindFabric, 1, SchemaVersion); err != nil {
		return nil, err
	}
	d := &Document{}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("fabric document: %w", err)
	}
	for i, m := range d.Members {
		if m.Rank != i {
			return nil, fmt.Errorf("members[%d] is rank %d: want the ranks in order from 0", i, m.Rank)
		}
	}
	if len(d.Members) == 0 {
		return nil, errors.New("members: none: want a member a rank")
	}
	return d, nil
}
