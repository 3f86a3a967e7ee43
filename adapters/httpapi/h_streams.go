package httpapi

import (
	"net/http"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
)

func streamView(s wire.StreamResponse) rest.Stream {
	return rest.Stream{ID: s.ID, CreatedAt: s.CreatedAtMicros, Name: s.Name, Size: sizeText(s.SizeBytes),
		MessagesCount: s.MessagesCount, TopicsCount: s.TopicsCount, Options: optionViews(s.Options, nil)}
}

func streamDetailsView(d wire.StreamDetails) rest.StreamDetails {
	return rest.StreamDetails{Stream: streamView(d.Stream), Topics: list(d.Topics, topicView)}
}

// streamPath reads {stream_id}.
func streamPath(r *http.Request) (wire.Identifier, *apiError) { return pathID(r, "stream_id") }

// GET /streams
func (s *Server) getStreams(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	return readList(s, c, w, wire.CmdGetStreams, nil, wire.DecodeStreams, streamView)
}

// GET /streams/{stream_id}
func (s *Server) getStream(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := streamPath(r)
	if e != nil {
		return e
	}
	body := encode(wire.StreamRef{StreamID: id}.Encode)
	return readOne(s, c, w, wire.CmdGetStream, body, wire.DecodeStreamDetails, streamDetailsView)
}

// parseCreateStream reads a POST /streams body: {"name", "options"?};
// every other member is refused naming it (RES-17, RES-18).
func parseCreateStream(o object) (wire.CreateStreamRequest, *apiError) {
	if e := o.onlyMembers("name", "options"); e != nil {
		return wire.CreateStreamRequest{}, e
	}
	name, e := o.name(wire.InvalidStreamName)
	if e != nil {
		return wire.CreateStreamRequest{}, e
	}
	opts, e := optionsObject(wire.StreamCatalog, o)
	if e != nil {
		return wire.CreateStreamRequest{}, e
	}
	return wire.CreateStreamRequest{Name: name, Options: opts}, nil
}

// POST /streams
func (s *Server) createStream(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	req, e := parseCreateStream(o)
	if e != nil {
		return e
	}
	st, e := fetch(s, c, metaWrite, wire.CmdCreateStream, encode(req.Encode), decodeStreamResponse)
	if e != nil {
		return e
	}
	return okJSON(w, rest.StreamDetails{Stream: streamView(st), Topics: []rest.Topic{}})
}

// decodeStreamResponse decodes a reply that is exactly one stream record.
func decodeStreamResponse(payload []byte) (wire.StreamResponse, wire.Code) {
	rd := wire.NewReader(payload)
	st := rd.StreamResponse()
	if rd.Err() == wire.OK && rd.Len() != 0 {
		return st, wire.InvalidCommand
	}
	return st, rd.Err()
}

// PUT /streams/{stream_id} with a flat body (RES-19..23).
func (s *Server) updateStream(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := streamPath(r)
	if e != nil {
		return e
	}
	return s.update(c, w, r, wire.UpdateResourceRequest{Scope: wire.ScopeStream, Stream: id})
}

// DELETE /streams/{stream_id}
func (s *Server) deleteStream(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := streamPath(r)
	if e != nil {
		return e
	}
	return s.command(c, w, metaWrite, wire.CmdDeleteStream, encode(wire.StreamRef{StreamID: id}.Encode))
}
