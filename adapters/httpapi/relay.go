package httpapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/iggygo/iggy/wire"
)

// Bounds of forwarding and relaying (RELAY-16..19).
const (
	// forwardsMax is the concurrent metadata forwards and partition relays
	// of one node together (RELAY-16).
	forwardsMax = 128
	// metadataForwardBudget is the one retry budget of a forwarded
	// control-plane write, counted from before its body is read (RELAY-18).
	metadataForwardBudget = 30 * time.Second
	// partitionDeadline is the one deadline of a partition request: its
	// route lookups, local attempts, relays and reply waits (RELAY-19).
	partitionDeadline = 10 * time.Second
	// partitionAttemptsMax bounds the attempts within that deadline, one
	// per transientRetryInterval.
	partitionAttemptsMax = int(partitionDeadline / transientRetryInterval)
	// relayReplyBytesMax caps a relayed reply (http.md 1.2: 64 MiB).
	relayReplyBytesMax = 64 << 20
	// relayIdleConnsPerPeer keeps a few connections to each peer open.
	relayIdleConnsPerPeer = 16
)

// Cluster is this node's place in a replica set, for forwarding and relays.
type Cluster struct {
	Self     uint8  // this node's replica id
	SelfName string // its roster name, as GetClusterMetadata lists it
	// Peers are the base URLs ("http://127.0.0.1:3001") of the other
	// nodes' HTTP listeners, by replica id.
	Peers map[uint8]string
	// Key is the relay key (RelayKey); nil: this node has no key material
	// and serves only the partitions it leads (RELAY-3).
	Key []byte
}

// RelayKey derives the relay key from the configured material (RELAY-5); nil
// when there is none.
func RelayKey(encodingSecret, decodingSecret, sharedSecret string) []byte {
	return relayKey(encodingSecret, decodingSecret, sharedSecret)
}

// forwardSlots is the shared limit of RELAY-16.
type forwardSlots chan struct{}

// take claims a slot without waiting; false at the limit (RELAY-17).
func (f forwardSlots) take() bool {
	select {
	case f <- struct{}{}:
		return true
	default:
		return false
	}
}

func (f forwardSlots) give() { <-f }

// Hand-built answers of forwarding and relaying (http.md 2.3): the id is the status.
func forwardBusy() *apiError {
	return handBuilt(http.StatusServiceUnavailable, "forward_busy", "Too many requests are being forwarded; send again.")
}

func relayRefused() *apiError {
	return handBuilt(http.StatusServiceUnavailable, "relay_refused",
		"The partition's primary refused this node's relay proof; nothing was admitted. Check the shared keys and clocks.")
}

func forwardFailed() *apiError {
	return handBuilt(http.StatusBadGateway, "forward_failed", "The relay failed after the request was sent; it may still commit.")
}

func noReachablePrimary() *apiError {
	return handBuilt(http.StatusServiceUnavailable, "no_reachable_primary",
		"No primary accepted the request in time; nothing was admitted.")
}

func handBuilt(status int, code, reason string) *apiError {
	return &apiError{status: status, id: uint32(status), code: code, reason: reason}
}

// notAdmitted is the transient 503 of RELAY-3 and RELAY-14: 58, nothing was admitted.
func notAdmitted() *apiError { return fromCode(wire.TransientNotAccepted, "") }

// proofRefused is the target's 403 for a relay it cannot accept (RELAY-10).
func proofRefused(err error) *apiError {
	code := "relay_proof_invalid"
	switch {
	case errors.Is(err, errProofMissing):
		code = "relay_proof_missing"
	case errors.Is(err, errProofExpired):
		code = "relay_proof_expired"
	}
	return handBuilt(http.StatusForbidden, code, err.Error()+".")
}

// newRelayClient is the client of relays. Under http.tls every node serves
// the same certificate, so a peer is trusted when it presents exactly ours.
func newRelayClient(own *tls.Certificate) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: relayIdleConnsPerPeer, IdleConnTimeout: idleTimeout,
		DialContext: (&net.Dialer{}).DialContext, ForceAttemptHTTP2: own != nil}
	if own != nil && len(own.Certificate) > 0 {
		leaf := own.Certificate[0]
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true, // pinned below
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 || !bytes.Equal(raw[0], leaf) {
					return errors.New("relay peer does not present this node's certificate")
				}
				return nil
			}}
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a relay never follows a redirect
	}}
}

// partitionCall is one partition-plane request (a send, a poll, an offset
// call) as routing sees it.
type partitionCall struct {
	ref  wire.TopicRef
	kind callKind
	// named is the partition the request names; a send names none (its
	// partitioning picks one, pick).
	named wire.OptionalPartition
	pick  func(routes []wire.PartitionRoute) (uint32, *apiError)
	body  []byte // the request body as received: a relay carries it unchanged
	// wait is a deferred poll's wait, which its deadline adds to the
	// partition deadline.
	wait time.Duration
	// serve runs the request on this node for partition p (not Given: as
	// the request says) within k's limits and writes the answer.
	serve func(k callKind, p wire.OptionalPartition) *apiError
}

// servePartition serves pc here when this node leads its partition and
// relays it to the partition's primary otherwise (RELAY-2), all within
// one deadline (RELAY-19). A relay received from a peer is served here
// only: a node that does not lead the partition answers it 58, and the
// origin looks the route up again.
func (s *Server) servePartition(c caller, w http.ResponseWriter, r *http.Request, pc partitionCall) *apiError {
	if s.cluster == nil {
		return pc.serve(pc.kind, pc.named)
	}
	deadline := c.start.Add(s.partitionDeadline + pc.wait)
	if c.relayed != nil {
		e := pc.serve(pc.kind.until(deadline), wire.OptionalPartition{Given: true, ID: c.relayed.partition})
		if isNotPrimary(e) {
			return notAdmitted()
		}
		return e
	}
	last := notAdmitted()
	for range partitionAttemptsMax {
		if time.Now().After(deadline) {
			break
		}
		done, e := s.attemptPartition(c, w, r, pc, deadline)
		if done {
			return e
		}
		last = e
		time.Sleep(transientRetryInterval)
	}
	return last
}

// attemptPartition looks the partition's primary up and serves or relays
// once; done is false when nothing was admitted and routing may try again.
func (s *Server) attemptPartition(c caller, w http.ResponseWriter, r *http.Request, pc partitionCall,
	deadline time.Time) (done bool, e *apiError) {
	routes, e := fetch(s, c, reading.until(deadline), wire.CmdPartitionRoutes, encode(pc.ref.Encode), wire.DecodePartitionRoutes)
	if e != nil {
		return true, e
	}
	p := pc.named.ID
	if !pc.named.Given {
		if p, e = pc.pick(routes); e != nil {
			return true, e
		}
	}
	primary, known := primaryOf(routes, p)
	if !known || primary == s.cluster.Self {
		// An unknown partition is the node's to refuse (3007).
		e = pc.serve(pc.kind.until(deadline), wire.OptionalPartition{Given: true, ID: p})
		if isNotPrimary(e) {
			return false, notAdmitted()
		}
		return true, e
	}
	if s.cluster.Key == nil {
		return true, notAdmitted() // no key material: only what this node leads (RELAY-3)
	}
	return s.relay(w, r, pc, relayRoute{target: primary, partition: p}, deadline)
}

// primaryOf is partition p's primary in routes.
func primaryOf(routes []wire.PartitionRoute, p uint32) (uint8, bool) {
	for _, rt := range routes {
		if rt.PartitionID == p {
			return rt.Primary, true
		}
	}
	return 0, false
}

func isNotPrimary(e *apiError) bool { return e != nil && !e.plain && e.id == uint32(wire.NotPrimary) }

// relayHeaders are the request headers a relay carries over; the target
// authenticates the caller's bearer again (RELAY-11).
var relayHeaders = []string{"Authorization", "Content-Type"}

// relayedReplyHeaders are the target's reply headers passed back (http.md 1.2).
var relayedReplyHeaders = []string{"Content-Type", "Retry-After", "iggy-view", durabilityHeader}

// relay sends pc to route's node with a proof and passes its answer on.
// done is false when the target provably admitted nothing (it could not
// be reached, or it answered 58) and routing may try again.
func (s *Server) relay(w http.ResponseWriter, r *http.Request, pc partitionCall, route relayRoute,
	deadline time.Time) (done bool, e *apiError) {
	base, ok := s.cluster.Peers[route.target]
	if !ok {
		return true, notAdmitted() // the primary serves no HTTP
	}
	if !s.forwards.take() {
		return true, forwardBusy()
	}
	defer s.forwards.give()
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, base+r.URL.RequestURI(), bytes.NewReader(pc.body))
	if err != nil {
		return true, forwardFailed()
	}
	for _, h := range relayHeaders {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	signRelay(req, s.cluster.Key, route, s.now())
	var sent atomic.Bool // the target cannot act on a request whose headers it never got
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { sent.Store(true) }}))
	resp, err := s.relayClient.Do(req)
	if err != nil {
		return relayFailure(ctx, pc.kind, sent.Load())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, relayReplyBytesMax+1))
	if err != nil {
		return relayFailure(ctx, pc.kind, true)
	}
	if len(body) > relayReplyBytesMax {
		return true, forwardFailed()
	}
	switch answer := errorOf(body); {
	case resp.StatusCode == http.StatusForbidden && isProofRefusal(answer.Code):
		s.log.Warn("http relay proof refused by the partition's primary; check shared keys and clocks",
			"target", route.target, "partition", route.partition, "code", answer.Code)
		return true, relayRefused() // nothing was admitted (RELAY-12, RELAY-13)
	case resp.StatusCode == http.StatusServiceUnavailable && answer.ID == uint32(wire.TransientNotAccepted):
		return false, notAdmitted()
	}
	for _, h := range relayedReplyHeaders {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	// The slot is held until the answer is written (or its write deadline,
	// the stall timeout, ends the connection), not only until it is
	// buffered: the path waits for reply space with its permit (FLOW-3).
	if _, err := w.Write(body); err == nil {
		_ = http.NewResponseController(w).Flush()
	}
	return true, nil
}

// relayFailure classifies a relay that got no answer: one whose headers
// never left (no connection, a TLS handshake the pinning refused)
// admitted nothing; past the deadline the outcome is the request kind's
// timeout; otherwise it may have been admitted (502).
func relayFailure(ctx context.Context, k callKind, sent bool) (bool, *apiError) {
	switch {
	case !sent:
		return false, notAdmitted()
	case ctx.Err() != nil:
		return true, k.onTimeout
	}
	return true, forwardFailed()
}

func isProofRefusal(code string) bool {
	switch code {
	case "relay_proof_missing", "relay_proof_invalid", "relay_proof_expired":
		return true
	}
	return false
}

// errorOf reads a JSON error body; the zero body when it is not one.
func errorOf(body []byte) errorBody {
	var b errorBody
	_ = json.Unmarshal(body, &b)
	return b
}
