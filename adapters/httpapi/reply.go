package httpapi

import (
	"net/http"

	"github.com/iggygo/iggy/wire"
)

// fetch calls the node and decodes its reply with decode. A reply that does
// not decode is a bug on one side, never the client's fault: 502 naming
// the command.
func fetch[T any](s *Server, c caller, k callKind, cmd wire.Command, body []byte,
	decode func([]byte) (T, wire.Code)) (T, *apiError) {
	var zero T
	payload, e := s.call(c, cmd, body, k)
	if e != nil {
		return zero, e
	}
	v, code := decode(payload)
	if code != wire.OK {
		return zero, badReply(cmd.Name())
	}
	return v, nil
}

// fetchOne is fetch of one resource the reply may say is absent: 404 then.
func fetchOne[T any](s *Server, c caller, k callKind, cmd wire.Command, body []byte,
	decode func([]byte) (T, bool, wire.Code)) (T, *apiError) {
	type maybe struct {
		v     T
		found bool
	}
	m, e := fetch(s, c, k, cmd, body, func(b []byte) (maybe, wire.Code) {
		v, found, code := decode(b)
		return maybe{v: v, found: found}, code
	})
	if e != nil {
		return m.v, e
	}
	if !m.found {
		return m.v, notFound()
	}
	return m.v, nil
}

// emptyIsAbsent adapts the decoder of a reply that is empty when the
// resource does not exist (GetUser, GetClient) for fetchOne.
func emptyIsAbsent[T any](decode func([]byte) (T, wire.Code)) func([]byte) (T, bool, wire.Code) {
	return func(b []byte) (T, bool, wire.Code) {
		if len(b) == 0 {
			var zero T
			return zero, false, wire.OK
		}
		v, code := decode(b)
		return v, true, code
	}
}

// mustHold adapts a decoder of a reply that may be empty for one that must
// hold the resource (a create's answer): an empty reply does not decode.
func mustHold[T any](decode func([]byte) (T, bool, wire.Code)) func([]byte) (T, wire.Code) {
	return func(b []byte) (T, wire.Code) {
		v, found, code := decode(b)
		if code == wire.OK && !found {
			return v, wire.InvalidCommand
		}
		return v, code
	}
}

// readList answers a list read: every element of the reply in its view.
func readList[T, J any](s *Server, c caller, w http.ResponseWriter, cmd wire.Command, body []byte,
	decode func([]byte) ([]T, wire.Code), view func(T) J) *apiError {
	items, e := fetch(s, c, reading, cmd, body, decode)
	if e != nil {
		return e
	}
	return okJSON(w, list(items, view))
}

// readOne answers a read of one resource in its view; 404 when absent.
func readOne[T, J any](s *Server, c caller, w http.ResponseWriter, cmd wire.Command, body []byte,
	decode func([]byte) (T, bool, wire.Code), view func(T) J) *apiError {
	return readOneAs(s, c, w, reading, cmd, body, decode, view)
}

// readOneAs is readOne within k's limits.
func readOneAs[T, J any](s *Server, c caller, w http.ResponseWriter, k callKind, cmd wire.Command, body []byte,
	decode func([]byte) (T, bool, wire.Code), view func(T) J) *apiError {
	v, e := fetchOne(s, c, k, cmd, body, decode)
	if e != nil {
		return e
	}
	return okJSON(w, view(v))
}

// command runs a write whose success is 204 without a body.
func (s *Server) command(c caller, w http.ResponseWriter, k callKind, cmd wire.Command, body []byte) *apiError {
	if _, e := s.call(c, cmd, body, k); e != nil {
		return e
	}
	return noContent(w)
}

// list maps every element of in to its JSON view; never nil, so an empty
// list is [] and not null.
func list[T, J any](in []T, view func(T) J) []J {
	out := make([]J, 0, len(in))
	for _, v := range in {
		out = append(out, view(v))
	}
	return out
}

// okJSON is the 200 of reads and creates with v as the body.
func okJSON(w http.ResponseWriter, v any) *apiError {
	writeJSON(w, http.StatusOK, v)
	return nil
}

// noContent is the 204 of writes without a body.
func noContent(w http.ResponseWriter) *apiError {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// badReply is the answer when a node reply does not decode: a bug on one
// side, never the client's fault.
func badReply(what string) *apiError {
	return &apiError{status: http.StatusBadGateway, id: http.StatusBadGateway, code: "node_failed",
		reason: "The node's " + what + " reply does not decode."}
}
