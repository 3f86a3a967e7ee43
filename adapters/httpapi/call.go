package httpapi

import (
	"net/http"
	"time"

	"github.com/iggygo/iggy/wire"
)

// Call policies by kind of request.
var (
	// readPolicy: reads replay only 58, nothing of theirs can commit.
	readPolicy = callPolicy{timeout: 10 * time.Second, budget: 10 * time.Second}
	// metaPolicy: control-plane writes replay 57 and 58 for up to 30 s
	// (http.md 2.3); the node answers a replayed request id from its receipt.
	metaPolicy = callPolicy{timeout: 30 * time.Second, budget: 30 * time.Second, replay57: true}
	// writePolicy: partition writes have no duplicate detection, so only
	// 58 (provably not admitted) is replayed; 10 s per http.md 5.1.
	writePolicy = callPolicy{timeout: 10 * time.Second, budget: 10 * time.Second}
	// snapshotPolicy: the archive runs host commands, so it may take longer than a read.
	snapshotPolicy = callPolicy{timeout: 60 * time.Second, budget: 10 * time.Second}
)

// Answers when the node does not reply in time.
var (
	metaTimeout = &apiError{status: http.StatusGatewayTimeout, id: uint32(wire.TransientNotCommitted),
		code: "transient_not_committed", reason: "The operation was not confirmed in time and may still commit."}
	readTimeout    = timeoutError("partition_read_timeout", "The node did not answer the read in time.")
	produceTimeout = timeoutError("produce_timeout", "The send was not confirmed in time and may still commit.")
	offsetTimeout  = timeoutError("offset_write_timeout", "The offset write was not confirmed in time and may still commit.")
)

// callKind is how one kind of request calls the node: the replay policy and
// the answer when the node does not reply in time (the outcome of a write
// is then unknown).
type callKind struct {
	policy    callPolicy
	onTimeout *apiError
	// forwardable: a control-plane write, which a node that is not the
	// metadata primary forwards to it (RELAY-1).
	forwardable bool
}

// callTimeMin is the least a call is given: a deadline already reached
// still sends once, so its answer is the node's.
const callTimeMin = time.Millisecond

// until is k with its round trip and replays ending by deadline at the latest.
func (k callKind) until(deadline time.Time) callKind {
	left := max(time.Until(deadline), callTimeMin)
	k.policy.timeout, k.policy.budget = min(k.policy.timeout, left), min(k.policy.budget, left)
	return k
}

var (
	reading      = callKind{policy: readPolicy, onTimeout: readTimeout}
	metaWrite    = callKind{policy: metaPolicy, onTimeout: metaTimeout, forwardable: true}
	offsetWrite  = callKind{policy: writePolicy, onTimeout: offsetTimeout}
	producing    = callKind{policy: writePolicy, onTimeout: produceTimeout}
	snapshotting = callKind{policy: snapshotPolicy, onTimeout: readTimeout}
	// segmentWrite is DeleteSegments: a metadata write only a member of
	// the partition can build (it resolves the segment count from its
	// log), so it is relayed to the partition's primary like a partition
	// call, whose node proposes it through the metadata primary.
	segmentWrite = callKind{policy: metaPolicy, onTimeout: metaTimeout}
)

// call sends one command on the caller's session and records it.
func (s *Server) call(c caller, code wire.Command, body []byte, k callKind) ([]byte, *apiError) {
	if k.forwardable && s.cluster != nil {
		return s.forwardCall(c, code, body, k)
	}
	return s.callNode(c, code, body, k)
}

// callNode is call without forwarding.
func (s *Server) callNode(c caller, code wire.Command, body []byte, k callKind) ([]byte, *apiError) {
	start := time.Now()
	payload, err := c.conn.call(code, body, k.policy)
	s.metrics.observeCommand(code.Name(), err == nil, time.Since(start))
	if err != nil {
		return nil, callError(err, k.onTimeout)
	}
	return payload, nil
}

// encode runs an encoder into a fresh body.
func encode(f func(w *wire.Writer)) []byte {
	var w wire.Writer
	f(&w)
	return w.Buf
}

// authed wraps a route that needs a bearer: it authenticates, then runs h.
func (s *Server) authed(h func(c caller, w http.ResponseWriter, r *http.Request) *apiError) handler {
	return func(w http.ResponseWriter, r *http.Request) *apiError {
		start := time.Now() // before the body is read (RELAY-18)
		var relayed *relayRoute
		if isRelay(r.Header) {
			route, err := s.verifyRelay(r)
			if err != nil {
				return proofRefused(err) // before the bearer: the proof gates the relay (RELAY-10)
			}
			relayed = &route
		}
		c, e := s.authenticate(r)
		if e != nil {
			return e
		}
		c.start, c.relayed = start, relayed
		return h(c, w, r)
	}
}
