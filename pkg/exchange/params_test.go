package exchange

import (
	"errors"
	"testing"
)

func TestCheckParams(t *testing.T) {
	tests := []struct {
		name        string
		local, peer map[string]string
		want        string
	}{
		{"equal", map[string]string{"size": "64"}, map[string]string{"size": "64"}, ""},
		{"nil", nil, nil, ""},
		{"one side only", map[string]string{"size": "64", "gid_index": "3"}, map[string]string{"size": "64", "ib_dev": "mlx5_0"}, ""},
		{"brief example",
			map[string]string{"workload": "write_lat", "size": "64", "iterations": "1000"},
			map[string]string{"workload": "read_lat", "size": "4096", "iterations": "1000"},
			"parameter mismatch: size: local 64, peer 4096; workload: local write_lat, peer read_lat"},
		{"quoted", map[string]string{"note": "", "b": "x y"}, map[string]string{"note": "a;b", "b": "x"},
			`parameter mismatch: b: local "x y", peer x; note: local "", peer "a;b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckParams(tt.local, tt.peer)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v\nwant %s", err, tt.want)
			}
			var pe *ParamMismatchError
			if !errors.Is(err, ErrParamMismatch) || !errors.As(err, &pe) {
				t.Fatalf("%v is not a *ParamMismatchError", err)
			}
		})
	}
}
