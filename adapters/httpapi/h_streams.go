package httpapi

import (
	"net/http"

	"github.com/iggygo/iggy/wire"
)

// streamJSON is a stream record (http.md 4.4).
type streamJSON struct {
	ID            uint32                `json:"id"`
	CreatedAt     uint64                `json:"created_at"`
	Name          string                `json:"name"`
	Size          string                `json:"size"`
	MessagesCount uint64                `json:"messages_count"`
	TopicsCount   uint32                `json:"topics_count"`
	Options       map[string]optionView `json:"options"`
}

type streamDetailsJSON struct {
	streamJSON
	Topics []topicJSON `json:"topics"`
}

func streamView(s wire.StreamResponse) streamJSON {
	return streamJSON{ID: s.ID, CreatedAt: s.CreatedAtMicros, Name: s.Name, Size: sizeText(s.SizeBytes),
		MessagesCount: s.MessagesCount, TopicsCount: s.TopicsCount, Options: optionViews(s.Options, nil)}
}

// GET /streams
func (s *Server) getStreams(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	payload, e := s.call(c, wire.CmdGetStreams, nil, readPolicy, readTimeout)
	if e != nil {
		return e
	}
	streams, code := wire.DecodeStreams(payload)
	if code != wire.OK {
		return badReply("GetStreams")
	}
	out := make([]streamJSON, 0, len(streams))
	for _, st := range streams {
		out = append(out, streamView(st))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GET /streams/{stream_id}
func (s *Server) getStream(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := pathID(r, "stream_id")
	if e != nil {
		return e
	}
	payload, e := s.call(c, wire.CmdGetStream, encode(wire.StreamRef{StreamID: id}.Encode), readPolicy, readTimeout)
	if e != nil {
		return e
	}
	d, found, code := wire.DecodeStreamDetails(payload)
	switch {
	case code != wire.OK:
		return badReply("GetStream")
	case !found:
		return notFound()
	}
	out := streamDetailsJSON{streamJSON: streamView(d.Stream), Topics: make([]topicJSON, 0, len(d.Topics))}
	for _, t := range d.Topics {
		out.Topics = append(out.Topics, topicView(t))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// parseCreateStream reads a POST /streams body: {"name", "options"?};
// every other member is refused naming it (RES-17, RES-18).
func parseCreateStream(o object) (wire.CreateStreamRequest, *apiError) {
	if e := o.onlyMembers("name", "options"); e != nil {
		return wire.CreateStreamRequest{}, e
	}
	name, _, e := o.str("name", true)
	if e != nil {
		return wire.CreateStreamRequest{}, e
	}
	if !validName(name) {
		return wire.CreateStreamRequest{}, fromCode(wire.InvalidStreamName, "name")
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
	payload, e := s.call(c, wire.CmdCreateStream, encode(req.Encode), metaPolicy, metaTimeout)
	if e != nil {
		return e
	}
	rd := wire.NewReader(payload)
	st := rd.StreamResponse()
	if rd.Err() != wire.OK || rd.Len() != 0 {
		return badReply("CreateStream")
	}
	writeJSON(w, http.StatusOK, streamDetailsJSON{streamJSON: streamView(st), Topics: []topicJSON{}})
	return nil
}

// PUT /streams/{stream_id} with a flat body (RES-19..23).
func (s *Server) updateStream(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := pathID(r, "stream_id")
	if e != nil {
		return e
	}
	return s.update(c, w, r, wire.UpdateResourceRequest{Scope: wire.ScopeStream, Stream: id})
}

// update sends UpdateResource (16) with the PUT body's set and reset lists.
func (s *Server) update(c caller, w http.ResponseWriter, r *http.Request, q wire.UpdateResourceRequest) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	cat, _ := wire.CatalogFor(q.Scope)
	if q.Set, q.Reset, e = updateBody(cat, o); e != nil {
		return e
	}
	if _, e := s.call(c, wire.CmdUpdateResource, encode(q.Encode), metaPolicy, metaTimeout); e != nil {
		return e
	}
	return noContent(w)
}

// DELETE /streams/{stream_id}
func (s *Server) deleteStream(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := pathID(r, "stream_id")
	if e != nil {
		return e
	}
	if _, e := s.call(c, wire.CmdDeleteStream, encode(wire.StreamRef{StreamID: id}.Encode), metaPolicy, metaTimeout); e != nil {
		return e
	}
	return noContent(w)
}
