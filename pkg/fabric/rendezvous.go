package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// Ways a rank learns rank 0's coordinator address (Session.Method).
const (
	MethodPMI         = "pmi"         // the PMI-1 key-value store over PMI_FD
	MethodCoordinator = "coordinator" // --coordinator HOST:PORT
	MethodDir         = "dir"         // a file in --rendezvous-dir
)

// Defaults for a zero RendezvousConfig field.
const (
	DefaultRendezvousTimeout = 60 * time.Second
	DefaultIOTimeout         = 10 * time.Second
)

// pmiKey is the PMI key under which rank 0 puts its coordinator address.
const pmiKey = "rdmabench_fabric_coord"

// RendezvousConfig says how this rank finds rank 0 and what it registers.
type RendezvousConfig struct {
	// World is this rank's place (from DetectWorld).
	World World
	// Self is what this rank registers; Rank and ParamsHash are filled in.
	Self Member
	// Getenv reads PMI_FD; nil means os.Getenv.
	Getenv func(string) string
	// Coordinator is --coordinator HOST:PORT: rank 0 listens on PORT,
	// the others dial HOST:PORT.
	Coordinator string
	// Dir is --rendezvous-dir: a directory on a filesystem every host
	// shares, one per run, where rank 0 writes its address.
	Dir string
	// ListenHost is the address rank 0's coordinator binds; "" binds
	// every address.
	ListenHost string
	// AdvertiseHost is the host rank 0 publishes (through PMI or Dir) for
	// the others to dial; "" means this host's name.
	AdvertiseHost string
	// Timeout bounds the whole rendezvous: rank 0's wait for every rank,
	// and the others' wait for rank 0. Zero means 60s.
	Timeout time.Duration
	// IOTimeout bounds one message or one connection attempt. Zero means
	// 10s.
	IOTimeout time.Duration
	// Token is the shared secret every rank must prove to rank 0 (and rank
	// 0 to them) before registering; "" lets anyone who reaches rank 0's
	// port register. See auth.go.
	Token string
	// Log receives rank 0's lines about the connections it refused, at
	// most one every 5s; nil writes nothing.
	Log io.Writer
}

// Session is a rendezvous that succeeded: the members are known to every
// rank and rank 0 holds a connection to each. Sweep runs on it; Close
// releases it.
type Session struct {
	// World is this rank's place.
	World World
	// Members are every rank's registrations, ordered by rank.
	Members []Member
	// Method is how rank 0's address was found (Method* constants).
	Method string
	// CoordinatorAddr is rank 0's coordinator address as dialled (or, on
	// rank 0, as published).
	CoordinatorAddr string

	cfg   RendezvousConfig
	links []*link // rank 0: links[r] to rank r >= 1
	up    *link   // rank r >= 1: the link to rank 0
}

// Rendezvous brings every rank together: rank 0 starts a coordinator and
// publishes its address; every other rank finds it (PMI first when PMI_FD
// is set, then Coordinator, then Dir), registers, and waits for the member
// list. Every rank first proves Token to rank 0 (auth.go): a connection
// that does not, or sends anything but a registration, is refused with no
// more than "refused" and rank 0 goes on waiting. Rank 0 refuses a
// member's other world size, version or parameter set, or a rank claimed
// twice, and stops everyone with that error; it names the ranks still
// missing when Timeout passes.
func Rendezvous(ctx context.Context, cfg RendezvousConfig) (*Session, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRendezvousTimeout
	}
	if cfg.IOTimeout <= 0 {
		cfg.IOTimeout = DefaultIOTimeout
	}
	w := cfg.World
	if w.Size < 2 || w.Rank < 0 || w.Rank >= w.Size {
		return nil, fmt.Errorf("rendezvous: world %+v: want rank in 0..size-1 and size of at least 2", w)
	}
	cfg.Self.Rank = w.Rank
	cfg.Self.ParamsHash = ParamsHash(cfg.Self.Params)
	method, err := chooseMethod(cfg)
	if err != nil {
		return nil, fmt.Errorf("rendezvous: %w", err)
	}
	s := &Session{World: w, Method: method, cfg: cfg}
	if w.Rank == 0 {
		err = s.coordinate(ctx)
	} else {
		err = s.join(ctx)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("rendezvous of rank %d via %s: %w", w.Rank, method, err)
	}
	return s, nil
}

// chooseMethod picks how to find rank 0, in order: PMI, Coordinator, Dir.
func chooseMethod(cfg RendezvousConfig) (string, error) {
	switch {
	case cfg.Getenv("PMI_FD") != "":
		return MethodPMI, nil
	case cfg.Coordinator != "":
		if _, _, err := net.SplitHostPort(cfg.Coordinator); err != nil {
			return "", fmt.Errorf("--coordinator %q: want HOST:PORT such as fabric-0.fabric:18600", cfg.Coordinator)
		}
		return MethodCoordinator, nil
	case cfg.Dir != "":
		return MethodDir, nil
	}
	return "", errors.New("no way to find rank 0: PMI_FD is unset (not under MPICH's mpiexec or srun --mpi=pmi2), and neither --coordinator HOST:PORT nor --rendezvous-dir DIR is given")
}

// Close releases the session's connections. Sweep closes them itself.
func (s *Session) Close() error {
	for _, l := range s.links {
		if l != nil {
			l.Close()
		}
	}
	if s.up != nil {
		s.up.Close()
	}
	return nil
}

// advertiseHost is the host rank 0 publishes.
func (s *Session) advertiseHost() (string, error) {
	if s.cfg.AdvertiseHost != "" {
		return s.cfg.AdvertiseHost, nil
	}
	h, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("host name to publish: %w (give the address to publish)", err)
	}
	return h, nil
}
