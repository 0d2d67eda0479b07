package document

import (
	"encoding/json"
	"fmt"
)

// CheckHead checks the head of a saved document of another kind than a
// run's (a fabric sweep's, a gate's) before it is decoded: its kind must
// be kind and its schema version one from lo to hi; an error names the key
// that is wrong.
func CheckHead(b []byte, kind string, lo, hi int) error {
	var head Envelope
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("not a %s document: %w", kind, err)
	}
	if head.Kind != kind {
		return fmt.Errorf("kind %q: want %q", head.Kind, kind)
	}
	if head.SchemaVersion < lo || head.SchemaVersion > hi {
		if lo == hi {
			return fmt.Errorf("schema_version %d: this rdma-bench reads %s documents of version %d", head.SchemaVersion, kind, hi)
		}
		return fmt.Errorf("schema_version %d: this rdma-bench reads %s documents of version %d to %d", head.SchemaVersion, kind, lo, hi)
	}
	return nil
}
