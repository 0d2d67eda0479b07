package bench

import (
	"net"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
)

// Target is where the points run: a server's host and control port, or
// both sides here.
type Target struct {
	Host     string
	Port     int
	Loopback bool
}

// RunTarget reads run's WORKLOAD and HOST (or --loopback) from its
// arguments.
func RunTarget(args []string, loopback bool) (Target, string, error) {
	switch {
	case len(args) == 0:
		return Target{}, "", inputError("name a workload: %s", strings.Join(catalog.Names(), ", "))
	case len(args) > 2:
		return Target{}, "", inputError("unexpected argument %q", args[2])
	case loopback && len(args) == 2:
		return Target{}, "", inputError("--loopback runs both sides here: drop the host %q", args[1])
	case !loopback && len(args) < 2:
		return Target{}, "", inputError("name the server's host, or use --loopback")
	}
	at := Target{Loopback: loopback}
	if !loopback {
		h, err := CheckHost(args[1])
		if err != nil {
			return Target{}, "", err
		}
		at.Host = h
	}
	return at, args[0], nil
}

// SuiteTarget reads the suite's HOST (or --loopback) from its arguments.
func SuiteTarget(args []string, loopback bool) (Target, error) {
	at := Target{Loopback: loopback}
	switch {
	case loopback && len(args) > 0:
		return at, inputError("--loopback runs both sides here: drop the host %q", args[0])
	case !loopback && len(args) != 1:
		return at, inputError("name the server's host (started with rdma-bench server --persistent), or use --loopback")
	case !loopback:
		h, err := CheckHost(args[0])
		if err != nil {
			return at, err
		}
		at.Host = h
	}
	return at, nil
}

// CheckHost takes a server's host name or address ("[::1]" for an IPv6
// literal, brackets optional).
func CheckHost(arg string) (string, error) {
	h := arg
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return "", inputError("empty host %q: name the server's host or address, or use --loopback", arg)
	}
	if net.ParseIP(h) != nil {
		return h, nil
	}
	if len(h) > 253 || strings.IndexFunc(h, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')
	}) >= 0 {
		return "", inputError("host %q: want a host name or an IP address (the port goes in -p)", arg)
	}
	return h, nil
}
