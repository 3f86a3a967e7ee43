package wire

import "github.com/iggygo/iggy/internal/assert"

// Stream request and response bodies (protocol-data.md 2).

// StreamRef is the body of GetStream (200), DeleteStream (203), PurgeStream
// (205) and GetTopics (301): one stream identifier.
type StreamRef struct{ StreamID Identifier }

// DecodeStreamRef reads a StreamRef; bytes after it are ignored, as for every
// request body that does not end in an options block.
func DecodeStreamRef(body []byte) (StreamRef, Code) {
	r := NewReader(body)
	q := StreamRef{StreamID: r.Identifier()}
	return q, r.Err()
}

func (q StreamRef) Encode(w *Writer) { w.Identifier(q.StreamID) }

// CreateStreamRequest is the CreateStream (202) body: [name][options to end].
// The options are checked against StreamCatalog separately (AdmitCreate).
type CreateStreamRequest struct {
	Name    string
	Options Options
}

func DecodeCreateStreamRequest(body []byte) (CreateStreamRequest, Code) {
	r := NewReader(body)
	q := CreateStreamRequest{Name: r.Name()}
	q.Options = r.OptionsToEnd()
	return q, r.Err()
}

func (q CreateStreamRequest) Encode(w *Writer) {
	writeName(w, q.Name)
	w.OptionsInOrder(q.Options)
}

// UpdateStreamRequest is the UpdateStream (204) body: [stream][name][options to end].
type UpdateStreamRequest struct {
	StreamID Identifier
	Name     string
	Options  Options
}

func DecodeUpdateStreamRequest(body []byte) (UpdateStreamRequest, Code) {
	r := NewReader(body)
	q := UpdateStreamRequest{StreamID: r.Identifier(), Name: r.Name()}
	q.Options = r.OptionsToEnd()
	return q, r.Err()
}

func (q UpdateStreamRequest) Encode(w *Writer) {
	w.Identifier(q.StreamID)
	writeName(w, q.Name)
	w.OptionsInOrder(q.Options)
}

// StreamResponse is one stream record (protocol-data.md 2.2). Options holds
// the explicit entries only; streams have no derived block.
type StreamResponse struct {
	ID              uint32
	CreatedAtMicros uint64
	TopicsCount     uint32
	SizeBytes       uint64
	MessagesCount   uint64
	Name            string
	Options         Options
}

// streamResponseBytesMin is a record with a 1-byte name and an empty block.
const streamResponseBytesMin = 33 + 1 + 4

func (s StreamResponse) Encode(w *Writer) {
	w.U32(s.ID)
	w.U64(s.CreatedAtMicros)
	w.U32(s.TopicsCount)
	w.U64(s.SizeBytes)
	w.U64(s.MessagesCount)
	writeName(w, s.Name)
	w.OptionsPrefixed(s.Options)
}

// StreamResponse reads one record.
func (r *Reader) StreamResponse() StreamResponse {
	return StreamResponse{
		ID:              r.U32(),
		CreatedAtMicros: r.U64(),
		TopicsCount:     r.U32(),
		SizeBytes:       r.U64(),
		MessagesCount:   r.U64(),
		Name:            r.Name(),
		Options:         r.OptionsPrefixed(),
	}
}

// StreamDetails is the GetStream reply: the stream and exactly TopicsCount topics.
type StreamDetails struct {
	Stream StreamResponse
	Topics []TopicHeader
}

func (d StreamDetails) Encode(w *Writer) {
	if int(d.Stream.TopicsCount) != len(d.Topics) {
		assert.Failf("stream %d: topics_count %d, %d topics", d.Stream.ID, d.Stream.TopicsCount, len(d.Topics))
	}
	d.Stream.Encode(w)
	for _, t := range d.Topics {
		t.Encode(w)
	}
}

// DecodeStreamDetails reads a GetStream reply; an empty body means "not
// found" (found = false). The topics are read by count, never to the end.
func DecodeStreamDetails(body []byte) (d StreamDetails, found bool, code Code) {
	if len(body) == 0 {
		return StreamDetails{}, false, OK
	}
	r := NewReader(body)
	d.Stream = r.StreamResponse()
	if r.Err() == OK && uint64(d.Stream.TopicsCount) > uint64(r.Len()/topicHeaderBytesMin) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return StreamDetails{}, false, r.Err()
	}
	d.Topics = make([]TopicHeader, 0, d.Stream.TopicsCount)
	for range d.Stream.TopicsCount {
		d.Topics = append(d.Topics, r.TopicHeader())
	}
	if code := finish(r); code != OK {
		return StreamDetails{}, false, code
	}
	return d, true, OK
}

// EncodeStreams writes the GetStreams reply: records concatenated, no count.
func EncodeStreams(w *Writer, streams []StreamResponse) {
	for _, s := range streams {
		s.Encode(w)
	}
}

// DecodeStreams reads a GetStreams reply to the end of the body.
func DecodeStreams(body []byte) ([]StreamResponse, Code) {
	r := NewReader(body)
	out := make([]StreamResponse, 0, len(body)/streamResponseBytesMin)
	for r.Len() > 0 && r.Err() == OK {
		out = append(out, r.StreamResponse())
	}
	if r.Err() != OK {
		return nil, r.Err()
	}
	return out, OK
}

// finish reports the reader's error, or 3 when a response left bytes unread
// (protocol-data.md 0.1: responses reject trailing data).
func finish(r *Reader) Code {
	if r.Err() == OK && r.Len() != 0 {
		r.Fail(InvalidCommand)
	}
	return r.Err()
}

// writeName writes a WireName; a name outside 1..255 bytes is a caller bug.
func writeName(w *Writer, name string) {
	if len(name) < 1 || len(name) > 255 {
		assert.Failf("name of %d bytes", len(name))
	}
	w.Name(name)
}
