package fabric

import (
	"math"
	"testing"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestDetectWorldLaunchers(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		flags Flags
		want  World
	}{
		{"openmpi", map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "8"}, Flags{},
			World{3, 8, LauncherOpenMPI}},
		{"pmi hydra", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2", "PMI_FD": "5"}, Flags{},
			World{1, 2, LauncherPMI}},
		{"slurm", map[string]string{"SLURM_PROCID": "15", "SLURM_NTASKS": "16"}, Flags{},
			World{15, 16, LauncherSlurm}},
		// srun --mpi=pmi2 sets both; PMI wins.
		{"slurm pmi2", map[string]string{"SLURM_PROCID": "2", "SLURM_NTASKS": "4", "PMI_RANK": "2", "PMI_SIZE": "4"}, Flags{},
			World{2, 4, LauncherPMI}},
		// mpirun inside an sbatch allocation: the batch step's SLURM_* are stale.
		{"openmpi in slurm", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "1", "OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "6"}, Flags{},
			World{5, 6, LauncherOpenMPI}},
		{"kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "0"}, Flags{Size: 128, SizeSet: true},
			World{0, 128, LauncherKubernetes}},
		{"manual", nil, Flags{Rank: 1, Size: 3, RankSet: true, SizeSet: true},
			World{1, 3, LauncherManual}},
		{"flags agreeing with launcher", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, Flags{Rank: 1, Size: 2, RankSet: true, SizeSet: true},
			World{1, 2, LauncherSlurm}},
		{"spaces trimmed", map[string]string{"PMI_RANK": " 0", "PMI_SIZE": "2 "}, Flags{},
			World{0, 2, LauncherPMI}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DetectWorld(envOf(c.env), c.flags)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestDetectWorldErrors(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		flags Flags
		want  string
	}{
		{"nothing", nil, Flags{},
			"no launcher found (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID and JOB_COMPLETION_INDEX are unset) and no --rank/--world-size given: start under mpirun, mpiexec, srun or a Kubernetes Indexed Job, or give --rank N --world-size N"},
		{"rank only", nil, Flags{Rank: 1, RankSet: true},
			"--rank 1 given without --world-size: give both"},
		{"size only", nil, Flags{Size: 4, SizeSet: true},
			"--world-size 4 given without --rank: give both"},
		{"manual rank too big", nil, Flags{Rank: 4, Size: 4, RankSet: true, SizeSet: true},
			"rank 4 (manual) outside 0..3 for world size 4"},
		{"manual rank negative", nil, Flags{Rank: -1, Size: 4, RankSet: true, SizeSet: true},
			"rank -1 (manual) outside 0..3 for world size 4"},
		{"slurm rank too big", map[string]string{"SLURM_PROCID": "7", "SLURM_NTASKS": "4"}, Flags{},
			"rank 7 (slurm) outside 0..3 for world size 4"},
		{"kubernetes index too big", map[string]string{"JOB_COMPLETION_INDEX": "16"}, Flags{Size: 16, SizeSet: true},
			"rank 16 (kubernetes) outside 0..15 for world size 16"},
		{"size one", map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "1"}, Flags{},
			"world size 1 (openmpi): want 2 to 1024 processes, one per host"},
		{"manual size one", nil, Flags{Rank: 0, Size: 1, RankSet: true, SizeSet: true},
			"world size 1 (manual): want 2 to 1024 processes, one per host"},
		{"manual size over the limit", nil, Flags{Rank: 0, Size: MaxWorldSize + 1, RankSet: true, SizeSet: true},
			"world size 1025 (manual): want 2 to 1024 processes, one per host"},
		{"manual size max int", nil, Flags{Rank: 0, Size: math.MaxInt, RankSet: true, SizeSet: true},
			"world size 9223372036854775807 (manual): want 2 to 1024 processes, one per host"},
		{"manual size negative", nil, Flags{Rank: 0, Size: -3, RankSet: true, SizeSet: true},
			"world size -3 (manual): want 2 to 1024 processes, one per host"},
		{"launcher size over the limit", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2147483648"}, Flags{},
			"world size 2147483648 (slurm): want 2 to 1024 processes, one per host"},
		{"size zero", map[string]string{"PMI_RANK": "0", "PMI_SIZE": "0"}, Flags{},
			"world size 0 (pmi): want 2 to 1024 processes, one per host"},
		{"non-numeric rank", map[string]string{"PMI_RANK": "zero", "PMI_SIZE": "4"}, Flags{},
			`PMI_RANK="zero": want a whole number such as 0`},
		{"non-numeric size", map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "4x"}, Flags{},
			`OMPI_COMM_WORLD_SIZE="4x": want a whole number such as 0`},
		{"non-numeric index", map[string]string{"JOB_COMPLETION_INDEX": "a"}, Flags{Size: 4, SizeSet: true},
			`JOB_COMPLETION_INDEX="a": want a whole number such as 0`},
		{"rank without size", map[string]string{"SLURM_PROCID": "0"}, Flags{},
			"SLURM_PROCID is set but SLURM_NTASKS is not: want both from the launcher"},
		{"size without rank", map[string]string{"OMPI_COMM_WORLD_SIZE": "4"}, Flags{},
			"OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not: want both from the launcher"},
		{"kubernetes without size", map[string]string{"JOB_COMPLETION_INDEX": "3"}, Flags{},
			"JOB_COMPLETION_INDEX=3 is set (a Kubernetes Indexed Job) but --world-size is not: give --world-size with the Job's completions"},
		{"kubernetes rank disagrees", map[string]string{"JOB_COMPLETION_INDEX": "3"}, Flags{Rank: 2, Size: 8, RankSet: true, SizeSet: true},
			"--rank 2 disagrees with JOB_COMPLETION_INDEX=3: drop --rank under a launcher"},
		{"flag rank disagrees", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "4"}, Flags{Rank: 2, RankSet: true},
			"--rank 2 disagrees with PMI_RANK=1: drop --rank under a launcher"},
		{"flag size disagrees", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "4"}, Flags{Size: 8, SizeSet: true},
			"--world-size 8 disagrees with PMI_SIZE=4: drop --world-size under a launcher"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := DetectWorld(envOf(c.env), c.flags)
			if err == nil {
				t.Fatalf("got %+v, want error %q", w, c.want)
			}
			if err.Error() != c.want {
				t.Fatalf("got error\n  %q\nwant\n  %q", err, c.want)
			}
		})
	}
}
