package document

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encode writes d as one indented JSON document, stamped (see Stamped).
// Struct fields keep the key order stable; a figure not measured is null.
func Encode(w io.Writer, d *Document) error {
	if d == nil {
		return errors.New("encode json: no document")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Stamped(d)); err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	return nil
}

// Stamped is a copy of d as it is written: the schema version, the kind
// (run unless set), the tool name, and empty lists rather than null.
func Stamped(d *Document) *Document {
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
	return &out
}

// EncodeRecord writes one record of a streamed document: compact JSON on
// one line.
func EncodeRecord(w io.Writer, record any) error {
	b, err := json.Marshal(record)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	return nil
}
