package wire

// GroupedFetch (109, DEFP-16..18): one deferred read of many partitions of
// one topic, whose count, min_count and max_bytes bound the whole reply.
// Layouts in DESIGN.md "Wire layouts we chose"; vectors in wire/testdata.

// GroupedFetchPartitionsMax is the most partitions one fetch names (DEFP-16).
const GroupedFetchPartitionsMax = 1000

// FetchPartition is one partition of a grouped fetch and where its read
// starts: [partition_id u32][incarnation u64][strategy kind u8, value u64].
type FetchPartition struct {
	PartitionID uint32
	Incarnation uint64 // 0: not checked (MSG-6)
	Strategy    PollingStrategy
}

// GroupedFetchRequest is the 109 body:
//
//	[consumer][stream_id][topic_id][count u32][commit u8]
//	[max_wait_us u64][min_count u32][max_bytes u32]
//	[n u32, 1..1000] n x FetchPartition, each partition once
type GroupedFetchRequest struct {
	Consumer          Consumer
	StreamID, TopicID Identifier
	Count             uint32
	Commit            CommitPolicy
	WaitMicros        uint64
	MinCount          uint32
	MaxBytes          uint32
	Partitions        []FetchPartition
}

// DecodeGroupedFetchRequest decodes a 109 body; any fault (a commit byte
// other than 0 or 1, a wait above DeferredPollWaitMicrosMax, no partition
// or more than GroupedFetchPartitionsMax, a partition named twice, a short
// or long body) is InvalidCommand.
func DecodeGroupedFetchRequest(body []byte) (GroupedFetchRequest, Code) {
	r := NewReader(body)
	q := GroupedFetchRequest{Consumer: r.Consumer(), StreamID: r.Identifier(), TopicID: r.Identifier(),
		Count: r.U32(), Commit: CommitPolicy(r.U8()), WaitMicros: r.U64(), MinCount: r.U32(), MaxBytes: r.U32()}
	n := r.U32()
	const entryBytes = 4 + 8 + 9
	if r.Err() == OK && (q.Commit > CommitOnRead || q.WaitMicros > DeferredPollWaitMicrosMax ||
		n == 0 || n > GroupedFetchPartitionsMax || uint64(r.Len()) != uint64(n)*entryBytes) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return GroupedFetchRequest{}, r.Err()
	}
	seen := make(map[uint32]struct{}, n)
	q.Partitions = make([]FetchPartition, 0, n)
	for range n {
		p := FetchPartition{PartitionID: r.U32(), Incarnation: r.U64(), Strategy: r.PollingStrategy()}
		if _, dup := seen[p.PartitionID]; dup {
			r.Fail(InvalidCommand)
		}
		seen[p.PartitionID] = struct{}{}
		q.Partitions = append(q.Partitions, p)
	}
	if r.Err() != OK {
		return GroupedFetchRequest{}, r.Err()
	}
	return q, OK
}

func (q GroupedFetchRequest) Encode(w *Writer) {
	w.Consumer(q.Consumer)
	w.Identifier(q.StreamID)
	w.Identifier(q.TopicID)
	w.U32(q.Count)
	w.U8(uint8(q.Commit))
	w.U64(q.WaitMicros)
	w.U32(q.MinCount)
	w.U32(q.MaxBytes)
	w.U32(uint32(len(q.Partitions)))
	for _, p := range q.Partitions {
		w.U32(p.PartitionID)
		w.U64(p.Incarnation)
		w.PollingStrategy(p.Strategy)
	}
}

// FetchSectionHeaderBytes is the size of a grouped reply section's header.
const FetchSectionHeaderBytes = 12

// FetchSection is one partition's part of the 109 reply (DEFP-18):
// [partition_id u32][status u32][length u32][body]. A status 0 body is
// the reply to a poll with PollOptions (prefix, PollPositions, records);
// any other status has an empty body.
type FetchSection struct {
	PartitionID uint32
	Status      Code
	Polled      PolledMessages
	Positions   PollPositions
}

// FetchSectionHeader returns a section's 12 header bytes.
func FetchSectionHeader(partitionID uint32, status Code, length uint32) []byte {
	w := Writer{}
	w.U32(partitionID)
	w.U32(uint32(status))
	w.U32(length)
	return w.Buf
}

// DecodeGroupedFetchReply reads a 109 reply (client side): [n u32] then n
// sections that end exactly at the body's end.
func DecodeGroupedFetchReply(body []byte) ([]FetchSection, Code) {
	r := NewReader(body)
	n := r.U32()
	if r.Err() == OK && (n > GroupedFetchPartitionsMax || uint64(r.Len()) < uint64(n)*FetchSectionHeaderBytes) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return nil, r.Err()
	}
	out := make([]FetchSection, 0, n)
	for range n {
		s := FetchSection{PartitionID: r.U32(), Status: Code(r.U32())}
		length := r.U32()
		if r.Err() != OK || uint64(length) > uint64(r.Len()) || (s.Status != OK && length != 0) {
			return nil, InvalidCommand
		}
		if s.Status == OK {
			polled, pos, code := DecodePolledWithPositions(r.Bytes(int(length)))
			if code != OK || polled.Prefix.PartitionID != s.PartitionID {
				return nil, InvalidCommand
			}
			s.Polled, s.Positions = polled, pos
		}
		out = append(out, s)
	}
	if r.Len() != 0 {
		return nil, InvalidCommand
	}
	return out, OK
}
