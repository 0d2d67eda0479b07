package fabric

import "encoding/json"

// Coordinator conversation, one message a frame (see wire.go):
//
//	rank k                      rank 0
//	                       <--  challenge{nonce}    (on accepting the connection)
//	auth{proof, nonce}     -->                      (see auth.go)
//	register{size, member} -->
//	                       <--  ack{proof}          (registration accepted)
//	                       <--  welcome{members}    (every rank registered)
//	                       <--  start{...}          (Session.Sweep)
//	                       <--  assign{round, role, peer}
//	                       <--  abandon{round}      (a server whose measuring side failed)
//	done{round, ...}       -->                      (one assign/done per round)
//	                       <--  finish
//
// Rank 0 sends abandon to the serving rank of a pair as soon as the
// measuring rank reports a failure, so that the server stops waiting for
// a client that will not come rather than waiting out the pair's time; a
// server that was done already ignores it. A rank serving several pairs
// at once (an incast round's receiver, assign{peers}) gets no abandon:
// its other pairs go on, and the failed one's listener waits out the
// pair's time unless its server saw the client fail.
//
// The suspects' re-measurements (recheck.go) are more rounds of the same
// assign and done, numbered after the schedule's, each of one pair: the
// other ranks are assigned idle.
//
// Rank 0 may send error instead of any message; the rank then stops. A
// connection that is not a member's (a wrong token, not an auth then a
// registration) gets the error "refused" and nothing else.
const (
	msgChallenge = "challenge"
	msgAuth      = "auth"
	msgRegister  = "register"
	msgAck       = "ack"
	msgWelcome   = "welcome"
	msgStart     = "start"
	msgAssign    = "assign"
	msgDone      = "done"
	msgAbandon   = "abandon"
	msgFinish    = "finish"
	msgError     = "error"
)

// Roles in an assignment.
const (
	roleIdle    = "idle"
	roleServe   = "serve"
	roleMeasure = "measure"
)

// message is every coordinator message; Type says which fields are set.
type message struct {
	Type    string     `json:"type"`
	Size    int        `json:"size,omitempty"`    // register: the world size the rank has
	Member  *Member    `json:"member,omitempty"`  // register
	Members []Member   `json:"members,omitempty"` // welcome
	Start   *startMsg  `json:"start,omitempty"`
	Assign  *assignMsg `json:"assign,omitempty"`
	Done    *doneMsg   `json:"done,omitempty"`
	Error   string     `json:"error,omitempty"`
	Nonce   string     `json:"nonce,omitempty"` // challenge, auth: 32 random bytes in hex
	Proof   string     `json:"proof,omitempty"` // auth, ack: see auth.go
}

// startMsg opens a sweep and says how long a rank may wait.
type startMsg struct {
	Pattern       string `json:"pattern"`
	Rounds        int    `json:"rounds"`
	PairTimeoutNS int64  `json:"pair_timeout_ns"`
	GraceNS       int64  `json:"grace_ns"`
	DropResults   bool   `json:"drop_results,omitempty"`
}

// assignMsg is a rank's part in a round (1-based).
type assignMsg struct {
	Round int    `json:"round"`
	Role  string `json:"role"`
	Peer  int    `json:"peer"`
	// Peers, for a rank that serves several pairs at once (an incast
	// round's receiver), are the measuring ranks, the one its listener i
	// serves at i; Peer is then the first. Nil for one pair.
	Peers []int `json:"peers,omitempty"`
	// Listener, for a measuring rank, is which of Peer's listeners it
	// dials (Member.ListenerAddr); 0 is Member.Addr.
	Listener int `json:"listener,omitempty"`
}

// doneMsg is a rank's report of a round: for the measuring rank, the
// pair's result; for the serving rank, only an error if serving failed.
type doneMsg struct {
	Round     int                `json:"round"`
	Error     string             `json:"error,omitempty"`
	Figures   map[string]float64 `json:"figures,omitempty"`
	Result    json.RawMessage    `json:"result,omitempty"`
	ElapsedNS int64              `json:"elapsed_ns,omitempty"`
	// PeerErrors, from a rank that served several pairs at once, are
	// the errors of the pairs whose serving failed, by the measuring
	// rank; Error is then empty.
	PeerErrors map[int]string `json:"peer_errors,omitempty"`
}
