package document

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encode writes d as one indented JSON document, stamping the schema
// version, the kind (run unless set) and the tool name. Struct fields keep
// the key order stable; a figure not measured is null.
func Encode(w io.Writer, d *Document) error {
	if d == nil {
		return errors.New("encode json: no document")
	}
	out := *d
	out.SchemaVersion = SchemaVersion
	if out.Kind == "" {
		out.Kind = KindRun
	}
	if out.Tool.Name == "" {
		out.Tool.Name = ToolName
	}
	if out.Args == nil {
		out.Args = []string{}
	}
	if out.Results == nil {
		out.Results = []*Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	return nil
}
