package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// notJSON explains a syntax error with its line and column.
func notJSON(b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("not JSON: %v", err)
	}
	// Offset counts the bytes read, the offending one included.
	off := max(min(int(se.Offset), len(b))-1, 0)
	line := bytes.Count(b[:off], []byte("\n")) + 1
	col := off - bytes.LastIndexByte(b[:off], '\n')
	msg := fmt.Sprintf("not JSON: %v (line %d, column %d)", se, line, col)
	rest := b[off:]
	for _, tok := range []string{"NaN", "Infinity", "-Infinity", "inf"} {
		if bytes.HasPrefix(rest, []byte(tok)) {
			msg += fmt.Sprintf(": %s is not a JSON number; a figure is a positive number, or null when not measured", tok)
			break
		}
	}
	return errors.New(msg)
}

// typeError names the field of a value of the wrong type.
func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		field := strings.ReplaceAll(te.Field, ".Figures", "")
		want := te.Type.String()
		switch te.Type.Kind() {
		case reflect.Float64:
			want = "a number or null"
		case reflect.Int, reflect.Int64:
			want = "a whole number"
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "true or false"
		case reflect.Slice:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
		if te.Value == "number" || strings.HasPrefix(te.Value, "number ") {
			return fmt.Errorf("%s: %s is out of range: want %s", field, te.Value, want)
		}
		return fmt.Errorf("%s: found %s, want %s", field, article(te.Value), want)
	}
	return fmt.Errorf("not an rdma-bench document of schema %d: %v", SchemaVersion, err)
}

func article(v string) string {
	switch v {
	case "array", "object", "string", "number":
		if v == "array" || v == "object" {
			return "an " + v
		}
		return "a " + v
	}
	return v
}

func jsonText(v any) string {
	if v == nil {
		return "missing"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
