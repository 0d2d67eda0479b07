package document

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fill sets every settable field of v that is still zero to a value of
// its type: strings "s<n>", numbers n, true, one element in slices and
// maps, a new value behind pointers (a type within itself once only).
// Fields tagged json:"-" are left.
func fill(v reflect.Value, n *int) { fillIn(v, n, map[reflect.Type]int{}) }

func fillIn(v reflect.Value, n *int, depth map[reflect.Type]int) {
	fill := func(v reflect.Value, n *int) { fillIn(v, n, depth) }
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		if depth[v.Type().Elem()] >= 2 {
			return
		}
		depth[v.Type().Elem()]++
		defer func() { depth[v.Type().Elem()]-- }()
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), n)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 26, 12, 0, *n%60, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				fill(v.Field(i), n)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{"k":1}`))
			return
		}
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := range v.Len() {
			fill(v.Index(i), n)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, n)
		v.SetMapIndex(reflect.ValueOf("k"), e)
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", *n%7))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// full is a document with every field set, as Parse accepts it.
func full(t *testing.T) *Document {
	t.Helper()
	d := &Document{}
	n := 0
	fill(reflect.ValueOf(d), &n)
	d.SchemaVersion, d.Kind, d.Tool.Name = SchemaVersion, KindRun, ToolName
	d.Repeat = len(d.Results[0].Runs) // a result marked ok holds repeat runs
	d.Results[0].SizeBytes = 4096
	d.Results[0].Server.SizeBytes = 4096
	for _, r := range []*Result{d.Results[0], d.Results[0].Server} {
		r.Kind, r.Status = KindLatency, StatusOK
		r.Runs[0].Status = StatusPartial
		r.Params = map[string]json.RawMessage{"qps": json.RawMessage(`2`), "device": json.RawMessage(`"rxe0"`)}
		r.OpenLoop.RateOPS = 1000
		r.Loaded.Loaders = 2
		r.Expectations[0].Op = ">="
	}
	d.Results[0].Server.Server, d.Results[0].Server.Runs = nil, nil
	d.LoadCurves[0].RatesOPS = []int{1000, 4000}
	d.LoadCurves[0].KneeOPS = &d.LoadCurves[0].RatesOPS[1]
	d.LoadedCurves[0].Levels = []int{1, 2, 4}
	d.LoadedCurves[0].KneeLoaders = &d.LoadedCurves[0].Levels[2]
	return d
}

// TestRoundTrip: every field written is read back as it was.
func TestRoundTrip(t *testing.T) {
	want := full(t)
	var b bytes.Buffer
	if err := Encode(&b, want); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b.Bytes())
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, b.String())
	}
	// What Parse adds for the analysis, not read from the document.
	for _, r := range got.Results {
		if !r.RunsRecorded || r.Index != 0 {
			t.Errorf("result: runs recorded %v, index %d", r.RunsRecorded, r.Index)
		}
		r.RunsRecorded = false
	}
	// Compared as compact JSON: the indented writer re-indents raw values.
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("round trip differs:\n got %s\nwant %s", g, w)
	}
	// Every key written is one the reader knows: none is dropped.
	var generic map[string]any
	if err := json.Unmarshal(b.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(got)
	var back map[string]any
	if err := json.Unmarshal(again, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(generic, back) {
		t.Error("a key written is lost on reading")
	}
}

// TestFullSetsEveryField guards the round trip: a field added to a type
// without a value in full would go untested.
func TestFullSetsEveryField(t *testing.T) {
	var zero func(v reflect.Value, path string)
	zero = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				if !strings.HasSuffix(path, ".Server.Server") {
					t.Errorf("%s is nil", path)
				}
				return
			}
			zero(v.Elem(), path)
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return
			}
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.IsExported() && f.Tag.Get("json") != "-" {
					zero(v.Field(i), path+"."+f.Name)
				}
			}
		case reflect.Slice, reflect.Map:
			if v.Len() == 0 && !strings.HasSuffix(path, ".Server.Runs") {
				t.Errorf("%s is empty", path)
			}
			if v.Kind() == reflect.Slice && v.Type() != reflect.TypeFor[json.RawMessage]() {
				for i := range v.Len() {
					zero(v.Index(i), path)
				}
			}
		default:
			if v.IsZero() {
				t.Errorf("%s is zero", path)
			}
		}
	}
	zero(reflect.ValueOf(full(t)), "Document")
}

// TestEncodeStamps: the version, kind and tool name are the package's,
// and an empty document still has its arrays.
func TestEncodeStamps(t *testing.T) {
	var b bytes.Buffer
	if err := Encode(&b, &Document{Envelope: Envelope{SchemaVersion: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schema_version": 2`, `"kind": "run"`, `"name": "rdma-bench"`, `"results": []`, `"args": []`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %s in\n%s", want, b.String())
		}
	}
	if Encode(&b, nil) == nil {
		t.Error("no error for a nil document")
	}
}
