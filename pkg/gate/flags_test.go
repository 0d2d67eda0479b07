package gate

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/spf13/pflag"
)

func TestOptionsRegister(t *testing.T) {
	fs := pflag.NewFlagSet("gate", pflag.ContinueOnError)
	var o Options
	o.Register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	want := testOptions()
	want.Format, want.SaveDir = "table", filepath.Join("results", "gate")
	if !reflect.DeepEqual(o, want) {
		t.Errorf("defaults\n%+v\nwant\n%+v", o, want)
	}
	if _, err := o.Config(nil); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
	args := []string{"--base-env", "A=1", "--base-env", "B=2", "-n", "100", "-D", "0.5", "-o", "json", "--output-file", "out.json", "--method", "unpaired", "--candidate-args", "-I 0"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if len(o.BaseEnv) != 2 || o.Iters != 100 || o.Duration != 0.5 || o.Format != "json" || o.OutFile != "out.json" || o.Method != "unpaired" || o.CandArgs != "-I 0" {
		t.Errorf("parsed %+v", o)
	}
}
