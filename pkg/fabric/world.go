package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

// Launcher names as carried in World.Launcher.
const (
	LauncherOpenMPI    = "openmpi"    // Open MPI's mpirun: OMPI_COMM_WORLD_RANK/SIZE
	LauncherPMI        = "pmi"        // a PMI launcher (MPICH/Intel MPI Hydra, srun --mpi=pmi2): PMI_RANK/SIZE
	LauncherSlurm      = "slurm"      // Slurm's srun: SLURM_PROCID/SLURM_NTASKS
	LauncherKubernetes = "kubernetes" // a Kubernetes Indexed Job: JOB_COMPLETION_INDEX and --world-size
	LauncherManual     = "manual"     // --rank and --world-size given by hand
)

// World is this process's place among the processes of a fabric run.
type World struct {
	// Rank is this process's rank, 0..Size-1; rank 0 coordinates.
	Rank int `json:"rank"`
	// Size is the number of processes (hosts or NICs) in the run.
	Size int `json:"size"`
	// Launcher names where Rank and Size came from (Launcher* constants).
	Launcher string `json:"launcher"`
}

// Flags are the --rank and --world-size command-line flags. A flag that
// was not given has its Set field false; its value is then ignored.
type Flags struct {
	Rank, Size       int
	RankSet, SizeSet bool
}

// envLauncher is a launcher known by a pair of environment variables.
type envLauncher struct {
	name, rankVar, sizeVar string
}

// envLaunchers are tried in order: Open MPI and PMI first, as both also
// run inside a Slurm allocation whose SLURM_* variables describe the batch
// step rather than this process.
var envLaunchers = []envLauncher{
	{LauncherOpenMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
	{LauncherPMI, "PMI_RANK", "PMI_SIZE"},
	{LauncherSlurm, "SLURM_PROCID", "SLURM_NTASKS"},
}

// kubernetesIndexVar is set by Kubernetes in the pods of an Indexed Job.
const kubernetesIndexVar = "JOB_COMPLETION_INDEX"

// MaxWorldSize is the most ranks a fabric run takes. Rank 0 holds the
// whole schedule and an N x N matrix a workload: at 1024 ranks the pairs
// pattern is 2046 rounds, 1,047,552 pairs, about 17 MB of schedule and
// weeks of measuring at a second a pair.
const MaxWorldSize = 1024

// CheckWorldSize refuses a world size outside 2..MaxWorldSize, naming
// where it came from.
func CheckWorldSize(n int, from string) error {
	if n < 2 || n > MaxWorldSize {
		return fmt.Errorf("world size %d (%s): want 2 to %d processes, one per host", n, from, MaxWorldSize)
	}
	return nil
}

// DetectWorld finds this process's rank and the run's size from the
// launcher's environment, read through getenv, or else from flags. The
// launchers are tried in order: Open MPI, PMI (MPICH/Intel MPI Hydra, Slurm
// --mpi=pmi2), Slurm, a Kubernetes Indexed Job (whose size is
// --world-size), then --rank/--world-size by hand. A --rank or --world-size
// given under a launcher must agree with it. The size must be 2 to
// MaxWorldSize and the rank in 0..size-1.
func DetectWorld(getenv func(string) string, flags Flags) (World, error) {
	w, err := detect(getenv, flags)
	if err != nil {
		return World{}, err
	}
	if err := CheckWorldSize(w.Size, w.Launcher); err != nil {
		return World{}, err
	}
	if w.Rank < 0 || w.Rank >= w.Size {
		return World{}, fmt.Errorf("rank %d (%s) outside 0..%d for world size %d", w.Rank, w.Launcher, w.Size-1, w.Size)
	}
	return w, nil
}

func detect(getenv func(string) string, flags Flags) (World, error) {
	for _, l := range envLaunchers {
		rs, ss := strings.TrimSpace(getenv(l.rankVar)), strings.TrimSpace(getenv(l.sizeVar))
		if rs == "" && ss == "" {
			continue
		}
		if rs == "" || ss == "" {
			set, unset := l.rankVar, l.sizeVar
			if rs == "" {
				set, unset = l.sizeVar, l.rankVar
			}
			return World{}, fmt.Errorf("%s is set but %s is not: want both from the launcher", set, unset)
		}
		rank, err := envInt(l.rankVar, rs)
		if err != nil {
			return World{}, err
		}
		size, err := envInt(l.sizeVar, ss)
		if err != nil {
			return World{}, err
		}
		w := World{Rank: rank, Size: size, Launcher: l.name}
		return w, agree(w, l.rankVar, l.sizeVar, flags)
	}
	if is := strings.TrimSpace(getenv(kubernetesIndexVar)); is != "" {
		rank, err := envInt(kubernetesIndexVar, is)
		if err != nil {
			return World{}, err
		}
		if !flags.SizeSet {
			return World{}, fmt.Errorf("%s=%s is set (a Kubernetes Indexed Job) but --world-size is not: give --world-size with the Job's completions", kubernetesIndexVar, is)
		}
		w := World{Rank: rank, Size: flags.Size, Launcher: LauncherKubernetes}
		flags.SizeSet = false // --world-size is the source here, not a second opinion
		return w, agree(w, kubernetesIndexVar, "--world-size", flags)
	}
	switch {
	case flags.RankSet && flags.SizeSet:
		return World{Rank: flags.Rank, Size: flags.Size, Launcher: LauncherManual}, nil
	case flags.RankSet:
		return World{}, fmt.Errorf("--rank %d given without --world-size: give both", flags.Rank)
	case flags.SizeSet:
		return World{}, fmt.Errorf("--world-size %d given without --rank: give both", flags.Size)
	}
	return World{}, fmt.Errorf("no launcher found (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID and JOB_COMPLETION_INDEX are unset) and no --rank/--world-size given: start under mpirun, mpiexec, srun or a Kubernetes Indexed Job, or give --rank N --world-size N")
}

// envInt parses a launcher variable's value as a whole number.
func envInt(name, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: want a whole number such as 0", name, value)
	}
	return n, nil
}

// agree checks that --rank/--world-size, when given, match the launcher's values.
func agree(w World, rankVar, sizeVar string, flags Flags) error {
	if flags.RankSet && flags.Rank != w.Rank {
		return fmt.Errorf("--rank %d disagrees with %s=%d: drop --rank under a launcher", flags.Rank, rankVar, w.Rank)
	}
	if flags.SizeSet && flags.Size != w.Size {
		return fmt.Errorf("--world-size %d disagrees with %s=%d: drop --world-size under a launcher", flags.Size, sizeVar, w.Size)
	}
	return nil
}
