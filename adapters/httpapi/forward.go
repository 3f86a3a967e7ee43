package httpapi

import (
	"net/http"
	"time"

	"github.com/iggygo/iggy/wire"
)

// forwardCall runs a control-plane write in a replica set. On the metadata
// primary it is an ordinary call. On any other node the node itself
// forwards it to the primary (its VSR request path, which answers a
// replayed request id from the primary's receipt; RELAY-1): this call
// holds one of the node's forward slots meanwhile (RELAY-16, RELAY-17) and
// replays transient answers within one budget counted from the request's
// arrival, before its body was read (RELAY-18).
func (s *Server) forwardCall(c caller, code wire.Command, body []byte, k callKind) ([]byte, *apiError) {
	start := c.start
	if start.IsZero() {
		start = time.Now()
	}
	deadline := start.Add(s.forwardBudget)
	if time.Now().After(deadline) {
		return nil, noReachablePrimary() // a slow upload spent the budget; nothing was sent
	}
	leads, e := s.leadsMetadata(c, deadline)
	if e != nil {
		return nil, e
	}
	if leads {
		return s.callNode(c, code, body, k.until(deadline))
	}
	if !s.forwards.take() {
		return nil, forwardBusy()
	}
	defer s.forwards.give()
	payload, e := s.callNode(c, code, body, k.until(deadline))
	if e != nil && !e.plain && e.id == uint32(wire.TransientNotAccepted) {
		return nil, noReachablePrimary() // the budget ran out; nothing was admitted
	}
	return payload, e
}

// leadsMetadata asks the node whether it is the metadata primary: the
// leader of GetClusterMetadata, which names the primary of the node's view.
func (s *Server) leadsMetadata(c caller, deadline time.Time) (bool, *apiError) {
	m, e := fetch(s, c, reading.until(deadline), wire.CmdGetClusterMetadata, nil, wire.DecodeClusterMetadata)
	if e != nil {
		return false, e
	}
	for _, n := range m.Nodes {
		if n.Role == wire.ClusterRoleLeader {
			return n.Name == s.cluster.SelfName, nil
		}
	}
	return false, nil
}

// verifyRelay checks the proof of a relay received from a peer; a
// standalone node accepts none.
func (s *Server) verifyRelay(r *http.Request) (relayRoute, error) {
	if s.cluster == nil {
		return relayRoute{}, errProofInvalid
	}
	return checkRelay(r, s.cluster.Key, s.cluster.Self, s.now())
}
