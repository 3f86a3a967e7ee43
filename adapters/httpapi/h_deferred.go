package httpapi

import (
	"net/http"
	"time"

	"github.com/iggygo/iggy/wire"
)

// Deferred polls over HTTP (DEFP-7, DEFP-8): the poll's query parameters
// plus max_wait (a Go duration: "500ms", "5s"; 0 answers at once),
// min_count (default 1), max_bytes (default 0, no cap) and incarnation
// (default 0, unchecked; MSG-6). POST commits the offset of the reply's
// last message, as auto_commit=true does. The reply is the poll's JSON
// plus incarnation, continuation and checkpoint (null without messages).

// GET .../messages/deferred
func (s *Server) deferredPoll(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	return s.deferredPollAs(c, w, r, false)
}

// POST .../messages/deferred
func (s *Server) deferredPollCommit(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	return s.deferredPollAs(c, w, r, true)
}

func (s *Server) deferredPollAs(c caller, w http.ResponseWriter, r *http.Request, commit bool) *apiError {
	q, e := pollRequestOf(r)
	if e != nil {
		return e
	}
	d, e := deferredQuery(r, q)
	if e != nil {
		return e
	}
	d.Poll.AutoCommit = d.Poll.AutoCommit || commit
	// The node answers by the end of the wait; the read's own bound comes on top.
	wait := time.Duration(d.WaitMicros) * time.Microsecond
	k := callKind{policy: callPolicy{timeout: wait + readPolicy.timeout, budget: readPolicy.budget}, onTimeout: readTimeout}
	serve := func(k callKind, p wire.OptionalPartition) *apiError {
		if p.Given {
			d.Poll.Partition = p
		}
		out, e := fetch(s, c, k, wire.CmdDeferredPoll, encode(d.Encode), positionedView)
		if e != nil {
			return e
		}
		return okJSON(w, out)
	}
	ref := wire.TopicRef{StreamID: q.StreamID, TopicID: q.TopicID}
	return partitionReadError(s.servePartition(c, w, r, partitionCall{ref: ref, kind: k, named: q.Partition, wait: wait, serve: serve}))
}

// deferredQuery reads max_wait, min_count and max_bytes; a bad one is a plain 400.
func deferredQuery(r *http.Request, q wire.PollMessagesRequest) (wire.DeferredPollRequest, *apiError) {
	d := wire.DeferredPollRequest{Poll: q, MinCount: 1}
	if v := r.URL.Query().Get("max_wait"); v != "" {
		wait, err := time.ParseDuration(v)
		if err != nil || wait < 0 || wait > wire.DeferredPollWaitMicrosMax*time.Microsecond {
			return d, plainError(http.StatusBadRequest, "Failed to deserialize query string: max_wait")
		}
		d.WaitMicros = uint64(wait / time.Microsecond)
	}
	minCount, e := queryUint(r, "min_count", 1, 1<<32-1)
	if e != nil {
		return d, e
	}
	maxBytes, e := queryUint(r, "max_bytes", 0, 1<<32-1)
	if e != nil {
		return d, e
	}
	incarnation, e := queryUint(r, "incarnation", 0, 1<<64-1)
	if e != nil {
		return d, e
	}
	d.MinCount, d.MaxBytes, d.Incarnation = uint32(minCount), uint32(maxBytes), incarnation
	return d, nil
}

// positionedJSON is a deferred poll's reply: the poll's JSON and its
// positions (MSG-3..5).
type positionedJSON struct {
	polledJSON
	Incarnation  uint64  `json:"incarnation"`
	Continuation uint64  `json:"continuation"`
	Checkpoint   *uint64 `json:"checkpoint"`
}

// positionedView decodes the reply to a poll with PollOptions.
func positionedView(payload []byte) (positionedJSON, wire.Code) {
	decoded, pos, code := wire.DecodePolledWithPositions(payload)
	if code != wire.OK {
		return positionedJSON{}, code
	}
	polled, code := polledJSONOf(decoded, len(payload))
	if code != wire.OK {
		return positionedJSON{}, code
	}
	out := positionedJSON{polledJSON: polled, Incarnation: pos.Incarnation, Continuation: pos.Continuation}
	if pos.Checkpoint != wire.NoCheckpoint {
		out.Checkpoint = &pos.Checkpoint
	}
	return out, wire.OK
}
