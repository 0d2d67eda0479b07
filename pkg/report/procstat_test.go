package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseProcStatFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want ProcStat
	}{
		// busy = user+nice+system+irq+softirq+steal; guest (175628) is
		// already inside user and must not be added; iowait counts idle.
		{"proc_stat_2cpu.txt", ProcStat{
			BusyTicks: 10132153 + 290696 + 3084719 + 0 + 25195 + 0,
			IdleTicks: 46828483 + 16683,
			UserTicks: 10132153 + 290696,
			CPUs:      2,
		}},
		// Kernels before 2.5.41 have only user, nice, system and idle.
		{"proc_stat_old_kernel.txt", ProcStat{BusyTicks: 1320, IdleTicks: 5000, UserTicks: 1020, CPUs: 1}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseProcStat(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.file, got, tc.want)
		}
	}
}

func TestParseProcStatStrings(t *testing.T) {
	hugeIntr := "intr " + strings.Repeat("0 ", 100_000) + "\n" // longer than a bufio token
	for _, tc := range []struct {
		name, in string
		want     ProcStat
		err      string
	}{
		{name: "every field", in: "cpu 1 2 4 8 16 32 64 128 256 512\ncpu0 1 2 4 8 16 32 64 128 256 512\n",
			want: ProcStat{BusyTicks: 1 + 2 + 4 + 32 + 64 + 128, IdleTicks: 8 + 16, UserTicks: 1 + 2, StealTicks: 128, CPUs: 1}},
		{name: "steal and irq are busy", in: "cpu 0 0 0 100 0 10 20 30\n",
			want: ProcStat{BusyTicks: 60, IdleTicks: 100, StealTicks: 30}},
		{name: "iowait is idle", in: "cpu 0 0 0 100 50\n", want: ProcStat{IdleTicks: 150}},
		{name: "huge intr line", in: hugeIntr + "cpu 5 0 0 5\ncpu3 5 0 0 5\n",
			want: ProcStat{BusyTicks: 5, IdleTicks: 5, UserTicks: 5, CPUs: 1}},
		{name: "cpu-like labels ignored", in: "cpu 1 0 0 1\ncpufreq 9 9 9 9\n",
			want: ProcStat{BusyTicks: 1, IdleTicks: 1, UserTicks: 1}},
		{name: "empty", in: "", err: "no aggregate cpu line"},
		{name: "only per-cpu", in: "cpu0 1 2 3 4\n", err: "no aggregate cpu line"},
		{name: "too few fields", in: "cpu 1 2 3\n", err: "has 3 fields"},
		{name: "not a number", in: "cpu 1 x 3 4\n", err: "field 2"},
		{name: "negative", in: "cpu 1 -2 3 4\n", err: "field 2"},
		{name: "duplicate", in: "cpu 1 2 3 4\ncpu 1 2 3 4\n", err: "duplicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseProcStat([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
