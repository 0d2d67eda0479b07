package workloads

import "testing"

func TestPickDevice(t *testing.T) {
	tests := []struct {
		named, made string
		names       []string
		want, why   string
	}{
		{"mlx5_1", "rxe0", []string{"mlx5_0", "rxe0"}, "mlx5_1", "named by -d"},
		{"", "rxe0", []string{"mlx5_0", "rxe0"}, "rxe0", "made by rdma-bench softroce up, of 2 RDMA devices (mlx5_0, rxe0); -d names another"},
		{"", "rxe0", []string{"rxe0"}, "rxe0", "made by rdma-bench softroce up, the only RDMA device"},
		{"", "rxe1", []string{"mlx5_0", "rxe0"}, "mlx5_0", "the first of 2 RDMA devices (mlx5_0, rxe0); -d names another"},
		{"", "", []string{"rxe0"}, "rxe0", "the only RDMA device"},
		{"", "", nil, "", ""},
	}
	for _, tc := range tests {
		got, why := pickDevice(tc.named, tc.names, tc.made)
		if got != tc.want || why != tc.why {
			t.Errorf("pickDevice(%q, %v, %q) = %q, %q; want %q, %q", tc.named, tc.names, tc.made, got, why, tc.want, tc.why)
		}
	}
}
