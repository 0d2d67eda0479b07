package fabric

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"
)

// Authentication of a rank by rank 0, before rank 0 allocates anything for
// it or tells it anything (OpenSSH's and etcd's practice):
//
//   - on accepting a connection, rank 0 sends a challenge: a fresh random
//     nonce, and nothing about itself;
//   - the rank answers with auth: proof = HMAC-SHA256(token, "rank" ||
//     rank 0's nonce), and a nonce of its own; then its registration;
//   - rank 0 checks the proof in constant time; a wrong one, or anything
//     but auth then a registration, is answered "refused" and closed, and
//     rank 0 goes on waiting for its members;
//   - rank 0's ack carries HMAC-SHA256(token, "rank 0" || the rank's
//     nonce): a rank with a token follows only a rank 0 that has it.
//
// Without a token the proofs are empty and anyone who reaches the port is
// a member. Until a connection has registered it is a stranger: rank 0
// holds at most maxStrangers of them at once (the next are closed at once,
// like OpenSSH's MaxStartups), reads their frames within authTimeout and
// only authFrame bytes (then registerFrame for the registration).
const (
	maxStrangers = 16
	authTimeout  = 5 * time.Second
)

// refusedText is all a refused connection is told.
const refusedText = "refused"

// newNonce is 32 random bytes in hex.
func newNonce() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// proof is HMAC-SHA256(token, who || 0 || nonce) in hex; "" without a
// token.
func proof(token, who, nonce string) string {
	if token == "" {
		return ""
	}
	h := hmac.New(sha256.New, []byte(token))
	io.WriteString(h, who)
	h.Write([]byte{0})
	io.WriteString(h, nonce)
	return hex.EncodeToString(h.Sum(nil))
}

// proven says whether got is the proof of who for nonce under token, in
// constant time; without a token every proof is.
func proven(token, who, nonce, got string) bool {
	if token == "" {
		return true
	}
	return hmac.Equal([]byte(proof(token, who, nonce)), []byte(got))
}

// The "who" of each side's proof, so that one side's proof never passes
// for the other's.
const (
	proofRank  = "rdma-bench fabric rank"
	proofRank0 = "rdma-bench fabric rank 0"
)

// refusals writes the connections rank 0 refused, at most a line every
// refusalEvery: a flood cannot flood the log.
type refusals struct {
	mu   sync.Mutex
	w    io.Writer // nil: nothing is written
	last time.Time
	n    int    // refused since the last line
	why  string // the last one's reason
}

var refusalEvery = 5 * time.Second

// note records a refused connection from addr.
func (r *refusals) note(addr, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	r.why = addr + ": " + why
	if r.w != nil && time.Since(r.last) >= refusalEvery {
		r.flushLocked()
	}
}

// flush writes what was not written yet.
func (r *refusals) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n > 0 && r.w != nil {
		r.flushLocked()
	}
}

func (r *refusals) flushLocked() {
	fmt.Fprintf(r.w, "rdma-bench fabric: coordinator refused %s (the last from %s)\n", plural(r.n, "connection"), r.why)
	r.n, r.last = 0, time.Now()
}
