package compare

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"slices"
	"testing"
)

// junitSchema is the part of the JUnit 10 schema (junit-10.xsd of
// Jenkins' xunit plugin) that our output can touch: for each element, its
// allowed parents, allowed attributes and required attributes.
var junitSchema = map[string]struct {
	parents, attrs, required []string
}{
	"testsuites": {nil, []string{"name", "time", "tests", "failures", "errors"}, nil},
	"testsuite": {[]string{"testsuites", "testsuite"}, []string{"name", "tests", "failures", "errors", "group", "time",
		"skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"}, []string{"name", "tests", "failures", "errors"}},
	"properties": {[]string{"testsuite"}, nil, nil},
	"property":   {[]string{"properties"}, []string{"name", "value"}, []string{"name", "value"}},
	"testcase":   {[]string{"testsuite"}, []string{"name", "time", "classname", "group"}, []string{"name"}},
	"failure":    {[]string{"testcase"}, []string{"type", "message"}, nil},
	"skipped":    {[]string{"testcase"}, []string{"type", "message"}, nil},
	"system-out": {[]string{"testsuite", "testcase"}, nil, nil},
}

// surefireTime is the schema's SUREFIRE_TIME pattern for time attributes
// of testsuites and testsuite.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

func checkJUnitSchema(t *testing.T, doc []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			name := e.Name.Local
			rule, ok := junitSchema[name]
			if !ok {
				t.Fatalf("element <%s> not in the schema", name)
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			if (rule.parents == nil) != (parent == "") || (parent != "" && !slices.Contains(rule.parents, parent)) {
				t.Errorf("<%s> inside <%s>", name, parent)
			}
			seen := map[string]bool{}
			for _, a := range e.Attr {
				seen[a.Name.Local] = true
				if !slices.Contains(rule.attrs, a.Name.Local) {
					t.Errorf("<%s> has attribute %s, not in the schema", name, a.Name.Local)
				}
				if a.Name.Local == "time" && (name == "testsuite" || name == "testsuites") && !surefireTime.MatchString(a.Value) {
					t.Errorf("<%s time=%q> does not match SUREFIRE_TIME", name, a.Value)
				}
			}
			for _, r := range rule.required {
				if !seen[r] {
					t.Errorf("<%s> lacks required attribute %s", name, r)
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

func TestJUnitSchema(t *testing.T) {
	for _, r := range []Comparison{fixtureReport(t, false), fixtureReport(t, true), {}} {
		checkJUnitSchema(t, render(t, WriteJUnit, r))
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderersReturnWriteErrors(t *testing.T) {
	r := fixtureReport(t, false)
	for _, f := range Formats {
		render, err := RendererFor(f, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := render(failingWriter{}, r); err == nil {
			t.Errorf("%s: no error from a failing writer", f)
		}
	}
}
