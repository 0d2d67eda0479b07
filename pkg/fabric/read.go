package fabric

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Parse reads a saved fabric document (what Save and WriteJSON wrote):
// its kind must be [Kind] and its schema version one this package
// reads; an error names the key that is wrong.
func Parse(b []byte) (*Document, error) {
	var head struct {
		SchemaVersion int    `json:"schema_version"`
		Kind          string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("not a fabric document: %w", err)
	}
	if head.Kind != Kind {
		return nil, fmt.Errorf("kind %q: want %q", head.Kind, Kind)
	}
	if head.SchemaVersion < 1 || head.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("schema_version %d: this rdma-bench reads fabric documents of version 1 to %d", head.SchemaVersion, SchemaVersion)
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
