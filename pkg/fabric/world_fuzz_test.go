package fabric

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzDetectWorld feeds DetectWorld launcher variables (PMI's, Open
// MPI's, Slurm's, Kubernetes') and flags: it never panics, a world it
// accepts is in bounds, and an error is one line of printable text (the
// values come from the environment and go to the terminal).
func FuzzDetectWorld(f *testing.F) {
	f.Add("PMI", "1", "4", 0, 0, false, false)
	f.Add("PMI", " 3 ", "4", 3, 4, true, true)
	f.Add("OMPI", "0", "1025", 0, 0, false, false)
	f.Add("SLURM", "-1", "2", 0, 0, false, false)
	f.Add("SLURM", "1", "", 0, 0, false, false)
	f.Add("JOB", "2", "", 0, 3, false, true)
	f.Add("JOB", "\x1b[31m", "", 0, 3, false, false)
	f.Add("PMI", "9223372036854775807", "9223372036854775807", 0, 0, false, false)
	f.Add("", "", "", 1, 2, true, true)
	f.Fuzz(func(t *testing.T, launcher, rank, size string, fr, fs int, rankSet, sizeSet bool) {
		env := map[string]string{}
		switch launcher {
		case "PMI":
			env["PMI_RANK"], env["PMI_SIZE"] = rank, size
		case "OMPI":
			env["OMPI_COMM_WORLD_RANK"], env["OMPI_COMM_WORLD_SIZE"] = rank, size
		case "SLURM":
			env["SLURM_PROCID"], env["SLURM_NTASKS"] = rank, size
		case "JOB":
			env[kubernetesIndexVar] = rank
		}
		w, err := DetectWorld(func(k string) string { return env[k] }, Flags{Rank: fr, Size: fs, RankSet: rankSet, SizeSet: sizeSet})
		if err != nil {
			msg := err.Error()
			if msg == "" || strings.IndexFunc(msg, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
				t.Fatalf("error %q: want one line of printable text", msg)
			}
			return
		}
		if w.Size < 2 || w.Size > MaxWorldSize || w.Rank < 0 || w.Rank >= w.Size || w.Launcher == "" {
			t.Fatalf("accepted %+v", w)
		}
	})
}
