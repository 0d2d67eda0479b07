// Package safetext makes text from outside (a peer, a saved document) safe
// to print on a terminal.
package safetext

import (
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// MaxLen bounds outside text that reaches a message or a log.
const MaxLen = 512

// Sanitize makes s safe to print: control characters (escape sequences,
// line breaks that would forge log lines) and invalid UTF-8 are escaped,
// and the text is cut to a length that fits a line.
func Sanitize(s string) string {
	if len(s) > MaxLen {
		s = s[:MaxLen] + "..."
	}
	return Escape(s)
}

// Escape is Sanitize without the cut: the whole text, escaped.
func Escape(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ' }) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// Strings escapes, in place, every string v points to: struct fields
// (exported), slices, maps (keys too) and pointers, to any depth. Byte
// slices such as json.RawMessage are left as they are: JSON escapes its
// control characters.
func Strings(v any) {
	walk(reflect.ValueOf(v))
}

func walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			walk(v.Index(i))
		}
	case reflect.String:
		if v.CanSet() {
			if s := Escape(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		clean := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			walk(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			walk(e)
			clean.SetMapIndex(k, e)
		}
		if v.CanSet() {
			v.Set(clean)
		}
	}
}
