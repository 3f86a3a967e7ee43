package wire

// Partition and segment request bodies (protocol-data.md 4). Their replies are
// the result section only.

// PartitionsRequest is the CreatePartitions (402) and DeletePartitions (403)
// body: [stream_id][topic_id][partitions_count u32].
type PartitionsRequest struct {
	StreamID, TopicID Identifier
	PartitionsCount   uint32
}

// DecodePartitionsRequest serves both codes: 3 for a malformed body, 2015
// TooManyPartitions for a count of 0 or above 1000, before replication.
func DecodePartitionsRequest(body []byte) (PartitionsRequest, Code) {
	r := NewReader(body)
	ref := r.topicRef()
	q := PartitionsRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, PartitionsCount: r.U32()}
	if r.Err() == OK && (q.PartitionsCount == 0 || q.PartitionsCount > PartitionsPerRequestMax) {
		r.Fail(TooManyPartitions)
	}
	return q, r.Err()
}

func (q PartitionsRequest) Encode(w *Writer) {
	TopicRef{q.StreamID, q.TopicID}.Encode(w)
	w.U32(q.PartitionsCount)
}

// DeleteSegmentsRequest is the DeleteSegments (503) body:
// [stream_id][topic_id][partition_id u32][segments_count u32]. It deletes the
// segments_count oldest sealed segments.
type DeleteSegmentsRequest struct {
	StreamID, TopicID Identifier
	PartitionID       uint32
	SegmentsCount     uint32
}

func DecodeDeleteSegmentsRequest(body []byte) (DeleteSegmentsRequest, Code) {
	r := NewReader(body)
	ref := r.topicRef()
	q := DeleteSegmentsRequest{StreamID: ref.StreamID, TopicID: ref.TopicID,
		PartitionID: r.U32(), SegmentsCount: r.U32()}
	return q, r.Err()
}

func (q DeleteSegmentsRequest) Encode(w *Writer) {
	TopicRef{q.StreamID, q.TopicID}.Encode(w)
	w.U32(q.PartitionID)
	w.U32(q.SegmentsCount)
}
