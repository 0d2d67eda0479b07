package softroce

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	tests := []struct {
		name  string
		links []Link
		want  string
	}{
		{"none", nil, "no soft-RoCE devices\n"},
		{"hardware only", []Link{{Name: "mlx5_0", Netdev: "eth0", State: "ACTIVE"}}, "no soft-RoCE devices\n"},
		{"rxe among others", []Link{
			{Name: "mlx5_0", Netdev: "eth0", State: "ACTIVE"},
			{Name: "rxe0", Type: TypeRXE, Netdev: "eth1", State: "ACTIVE"},
			{Name: "rxe_long", Type: TypeRXE},
		}, "NAME      NETDEV  STATE\nrxe0      eth1    ACTIVE\nrxe_long  -       -\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := Render(&b, tt.links); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}
