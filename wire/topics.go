package wire

// Topic request and response bodies (protocol-data.md 3).

// PartitionsPerRequestMax bounds the partitions of one CreateTopic,
// CreatePartitions or DeletePartitions (protocol-data.md 11); above it is 2015.
const PartitionsPerRequestMax = 1000

// TopicRef is the body of GetTopic (300), DeleteTopic (303), PurgeTopic (305)
// and GetConsumerGroups (601): [stream_id][topic_id].
type TopicRef struct{ StreamID, TopicID Identifier }

func DecodeTopicRef(body []byte) (TopicRef, Code) {
	r := NewReader(body)
	q := r.topicRef()
	return q, r.Err()
}

func (r *Reader) topicRef() TopicRef {
	return TopicRef{StreamID: r.Identifier(), TopicID: r.Identifier()}
}

func (q TopicRef) Encode(w *Writer) {
	w.Identifier(q.StreamID)
	w.Identifier(q.TopicID)
}

// CreateTopicRequest is the CreateTopic (302) body:
// [stream_id][partitions_count u32][name][options to end]. The options are
// checked against the catalog separately (AdmitTopicCreate).
type CreateTopicRequest struct {
	StreamID        Identifier
	PartitionsCount uint32
	Name            string
	Options         Options
}

// DecodeCreateTopicRequest gives 3 for a malformed body and 2015
// TooManyPartitions for a count above 1000 (0 is allowed).
func DecodeCreateTopicRequest(body []byte) (CreateTopicRequest, Code) {
	r := NewReader(body)
	q := CreateTopicRequest{StreamID: r.Identifier(), PartitionsCount: r.U32(), Name: r.Name()}
	q.Options = r.OptionsToEnd()
	if r.Err() == OK && q.PartitionsCount > PartitionsPerRequestMax {
		r.Fail(TooManyPartitions)
	}
	return q, r.Err()
}

func (q CreateTopicRequest) Encode(w *Writer) {
	w.Identifier(q.StreamID)
	w.U32(q.PartitionsCount)
	writeName(w, q.Name)
	w.OptionsInOrder(q.Options)
}

// UpdateTopicRequest is the UpdateTopic (304) body:
// [stream_id][topic_id][name][options to end]; the name is always sent.
type UpdateTopicRequest struct {
	StreamID, TopicID Identifier
	Name              string
	Options           Options
}

func DecodeUpdateTopicRequest(body []byte) (UpdateTopicRequest, Code) {
	r := NewReader(body)
	ref := r.topicRef()
	q := UpdateTopicRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, Name: r.Name()}
	q.Options = r.OptionsToEnd()
	return q, r.Err()
}

func (q UpdateTopicRequest) Encode(w *Writer) {
	TopicRef{q.StreamID, q.TopicID}.Encode(w)
	writeName(w, q.Name)
	w.OptionsInOrder(q.Options)
}

// TopicHeader is one topic record (protocol-data.md 3.2): the fixed fields,
// then the explicit and the derived options blocks.
type TopicHeader struct {
	ID                   uint32
	CreatedAtMicros      uint64
	PartitionsCount      uint32
	MessageExpiryMicros  uint64 // 0 = server default, Unlimited = never
	CompressionAlgorithm CompressionAlgorithm
	MaxTopicSizeBytes    uint64 // 0 = server default, Unlimited = no cap
	SizeBytes            uint64
	MessagesCount        uint64
	Name                 string
	Explicit             Options
	Derived              Options
}

// topicHeaderBytesMin is a header with a 1-byte name and two empty blocks.
const topicHeaderBytesMin = 59

func (t TopicHeader) Encode(w *Writer) {
	w.U32(t.ID)
	w.U64(t.CreatedAtMicros)
	w.U32(t.PartitionsCount)
	w.U64(t.MessageExpiryMicros)
	w.U8(uint8(t.CompressionAlgorithm))
	w.U64(t.MaxTopicSizeBytes)
	w.U64(t.SizeBytes)
	w.U64(t.MessagesCount)
	writeName(w, t.Name)
	w.OptionsPrefixed(t.Explicit)
	w.OptionsPrefixed(t.Derived)
}

// TopicHeader reads one record. The compression byte is kept as sent.
func (r *Reader) TopicHeader() TopicHeader {
	return TopicHeader{
		ID:                   r.U32(),
		CreatedAtMicros:      r.U64(),
		PartitionsCount:      r.U32(),
		MessageExpiryMicros:  r.U64(),
		CompressionAlgorithm: CompressionAlgorithm(r.U8()),
		MaxTopicSizeBytes:    r.U64(),
		SizeBytes:            r.U64(),
		MessagesCount:        r.U64(),
		Name:                 r.Name(),
		Explicit:             r.OptionsPrefixed(),
		Derived:              r.OptionsPrefixed(),
	}
}

// PartitionResponse is one partition record (protocol-data.md 3.3, 40 bytes).
type PartitionResponse struct {
	ID              uint32
	CreatedAtMicros uint64
	SegmentsCount   uint32
	CurrentOffset   uint64
	SizeBytes       uint64
	MessagesCount   uint64
}

const partitionResponseBytes = 40

func (p PartitionResponse) Encode(w *Writer) {
	w.U32(p.ID)
	w.U64(p.CreatedAtMicros)
	w.U32(p.SegmentsCount)
	w.U64(p.CurrentOffset)
	w.U64(p.SizeBytes)
	w.U64(p.MessagesCount)
}

func (r *Reader) PartitionResponse() PartitionResponse {
	return PartitionResponse{ID: r.U32(), CreatedAtMicros: r.U64(), SegmentsCount: r.U32(),
		CurrentOffset: r.U64(), SizeBytes: r.U64(), MessagesCount: r.U64()}
}

// TopicDetails is the GetTopic reply and the CreateTopic payload: the header
// and its partitions. The server sends exactly PartitionsCount records.
type TopicDetails struct {
	Topic      TopicHeader
	Partitions []PartitionResponse
}

func (d TopicDetails) Encode(w *Writer) {
	d.Topic.Encode(w)
	for _, p := range d.Partitions {
		p.Encode(w)
	}
}

// DecodeTopicDetails reads a GetTopic reply or CreateTopic payload; an empty
// body means "not found". Like the Go SDK it reads partition records to the
// end of the body (vector 55 carries none), which must hold whole records.
func DecodeTopicDetails(body []byte) (d TopicDetails, found bool, code Code) {
	if len(body) == 0 {
		return TopicDetails{}, false, OK
	}
	r := NewReader(body)
	d.Topic = r.TopicHeader()
	if r.Err() == OK && r.Len()%partitionResponseBytes != 0 {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return TopicDetails{}, false, r.Err()
	}
	d.Partitions = make([]PartitionResponse, 0, r.Len()/partitionResponseBytes)
	for r.Len() > 0 {
		d.Partitions = append(d.Partitions, r.PartitionResponse())
	}
	return d, true, OK
}

// EncodeTopics writes the GetTopics reply: [count u32] and the headers.
func EncodeTopics(w *Writer, topics []TopicHeader) {
	w.U32(uint32(len(topics)))
	for _, t := range topics {
		t.Encode(w)
	}
}

// DecodeTopics reads a GetTopics reply: exactly count headers, nothing after.
func DecodeTopics(body []byte) ([]TopicHeader, Code) {
	r := NewReader(body)
	count := r.U32()
	if r.Err() == OK && uint64(count) > uint64(r.Len()/topicHeaderBytesMin) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return nil, r.Err()
	}
	out := make([]TopicHeader, 0, count)
	for range count {
		out = append(out, r.TopicHeader())
	}
	if code := finish(r); code != OK {
		return nil, code
	}
	return out, OK
}
