package point

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// ParseSize parses a message size: a count of bytes with an optional
// binary suffix K, M or G (1024-based, optionally followed by "B" or
// "iB"): 2, 64, 4K, 1M, 8MiB.
func ParseSize(s string) (int, error) {
	n, err := parseBytes(s, 30, "1G")
	return int(n), err
}

// ParseMemory parses an amount of memory as ParseSize does, with T too,
// up to 1T.
func ParseMemory(s string) (uint64, error) { return parseBytes(s, 40, "1T") }

// parseBytes parses a byte count with an optional K, M, G or T suffix, up
// to 1<<maxShift (named limit).
func parseBytes(s string, maxShift int, limit string) (uint64, error) {
	t := strings.TrimSpace(s)
	u := strings.ToUpper(t)
	u = strings.TrimSuffix(strings.TrimSuffix(u, "IB"), "B")
	shift := 0
	switch {
	case strings.HasSuffix(u, "K"):
		shift = 10
	case strings.HasSuffix(u, "M"):
		shift = 20
	case strings.HasSuffix(u, "G"):
		shift = 30
	case strings.HasSuffix(u, "T") && maxShift > 30:
		shift = 40
	}
	if shift > 0 {
		u = u[:len(u)-1]
	}
	n, err := strconv.ParseUint(u, 10, 63)
	if err != nil || u == "" {
		return 0, fmt.Errorf("size %q: want a number of bytes such as 64, 4K or 1M", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("size %q: must be at least 1 byte", s)
	}
	if bits.Len64(n)+shift > maxShift+1 || n<<shift > 1<<maxShift {
		return 0, fmt.Errorf("size %q: larger than %s", s, limit)
	}
	return n << shift, nil
}

// ParseSizes parses a comma-separated list of sizes, naming the bad token.
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, tok := range strings.Split(s, ",") {
		n, err := ParseSize(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// SweepSizes returns the powers of two from min to max inclusive, as
// perftest's -a does from 2 B to 8 MiB.
func SweepSizes(min, max int) ([]int, error) {
	if min < 1 || max < min {
		return nil, fmt.Errorf("sweep bounds %d..%d: need 1 <= min <= max", min, max)
	}
	var out []int
	for s := 1; s <= max; s <<= 1 {
		if s >= min {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sweep bounds %d..%d hold no power of two", min, max)
	}
	return out, nil
}
