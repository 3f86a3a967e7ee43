package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// metadataRequest admits a metadata op (protocol-framing.md 4.5): session and
// duplicate checks, then pre-consensus validation, then the proposal.
func (n *Node) metadataRequest(c *conn, h wire.RequestHeader, body []byte) {
	e, ok := n.clients[c.client]
	switch {
	case !ok:
		n.evict(c, h, wire.EvictNoSession)
		return
	case c.session < e.session:
		n.evict(c, h, wire.EvictSessionTooLow)
		return
	case c.session > e.session:
		n.done(c) // dropped silently (4.5); the connection takes its next request
		return
	case e.inflight:
		n.reject(c, h, wire.TransientNotCommitted)
		return
	case h.Request <= e.watermark:
		n.resend(c, h, e)
		return
	}
	switch h.Operation {
	case wire.OpCreateUser:
		n.buildCreateUser(c, h, body)
	case wire.OpChangePassword:
		n.buildChangePassword(c, h, body)
	default:
		cmd, token, code := n.buildCommand(c, h.Operation, body)
		n.proposeCommand(c, h, cmd, token, code)
	}
}

// proposeCommand proposes a built command, or answers why it cannot be. A
// command built by a job comes here later, so the session is checked again.
func (n *Node) proposeCommand(c *conn, h wire.RequestHeader, cmd metadata.Command, token string, code wire.Code) {
	if _, open := n.conns[c.id]; !open {
		return
	}
	e, ok := n.clients[c.client]
	switch {
	case code == wire.TransientNotAccepted:
		n.reject(c, h, code) // transient codes are result-framed, so the SDK replays
	case code != wire.OK:
		n.deny(c, h, code)
	case !ok || !c.bound:
		n.evict(c, h, wire.EvictNoSession)
	case e.inflight:
		n.reject(c, h, wire.TransientNotCommitted)
	default:
		p := vsr.Prepare{
			Kind: vsr.KindCommand, Timestamp: n.now.NowMicros,
			ClientLo: c.client.Lo, ClientHi: c.client.Hi, Request: h.Request,
			UserID: c.userID, Operation: uint8(h.Operation), Body: metadata.Encode(cmd),
		}
		if !n.proposeFor(c, h, p, token) {
			n.reject(c, h, wire.TransientNotAccepted)
			return
		}
		e.inflight = true
	}
}

// resend answers a request id at or below the watermark: its receipt again,
// byte for byte, or 59 when the receipt is gone.
func (n *Node) resend(c *conn, h wire.RequestHeader, e *client) {
	r, ok := e.lookup(h.Request)
	if !ok {
		n.reject(c, h, wire.RequestAlreadyApplied)
		return
	}
	if r.operation == wire.OpCreatePersonalAccessToken && len(r.body) == 4 {
		// The raw token cannot be shown twice.
		n.reject(c, h, wire.PersonalAccessTokenAlreadyExists)
		return
	}
	rh := n.replyHeader(h, r.op)
	rh.Operation, rh.Commit = r.operation, r.op
	n.reply(c, wire.RawFrame(rh, r.body)...)
}

// buildCommand decodes a metadata op's body and does every check that comes
// before consensus. Passwords become hashes here; a new token is minted here
// and only its hash enters the log.
func (n *Node) buildCommand(c *conn, op wire.Operation, body []byte) (metadata.Command, string, wire.Code) {
	switch op {
	case wire.OpCreateStream:
		return n.buildCreateStream(body)
	case wire.OpDeleteStream:
		q, code := wire.DecodeStreamRef(body)
		return &metadata.DeleteStream{Stream: q.StreamID}, "", code
	case wire.OpCreateTopic:
		return n.buildCreateTopic(c, body)
	case wire.OpDeleteTopic:
		q, code := wire.DecodeTopicRef(body)
		return &metadata.DeleteTopic{Stream: q.StreamID, Topic: q.TopicID}, "", code
	case wire.OpCreatePartitions, wire.OpDeletePartitions:
		cmd, code := buildPartitions(op, body)
		if create, ok := cmd.(*metadata.CreatePartitions); ok && code == wire.OK {
			code = n.partitionsRoom(c, create.Stream, create.Topic, create.Count)
		}
		return cmd, "", code
	case wire.OpDeleteSegments:
		return n.buildDeleteSegments(body)
	case wire.OpCreateConsumerGroup:
		q, code := wire.DecodeCreateConsumerGroupRequest(body)
		if code == wire.OK && !wire.NamePrintable(q.Name) {
			code = wire.InvalidConsumerGroupName
		}
		return &metadata.CreateConsumerGroup{Stream: q.StreamID, Topic: q.TopicID, Name: q.Name}, "", code
	case wire.OpDeleteConsumerGroup:
		q, code := wire.DecodeGroupRef(body)
		return &metadata.DeleteConsumerGroup{Stream: q.StreamID, Topic: q.TopicID, Group: q.GroupID}, "", code
	case wire.OpJoinConsumerGroup:
		q, code := wire.DecodeGroupRef(body)
		return &metadata.JoinConsumerGroup{Stream: q.StreamID, Topic: q.TopicID, Group: q.GroupID, Client: metadataClientID(c.client)}, "", code
	case wire.OpLeaveConsumerGroup:
		q, code := wire.DecodeGroupRef(body)
		return &metadata.LeaveConsumerGroup{Stream: q.StreamID, Topic: q.TopicID, Group: q.GroupID, Client: metadataClientID(c.client)}, "", code
	case wire.OpUpdateResource:
		return n.buildUpdateResource(body)
	}
	return n.buildUserCommand(c, op, body)
}

func (n *Node) buildCreateStream(body []byte) (metadata.Command, string, wire.Code) {
	q, code := wire.DecodeCreateStreamRequest(body)
	if code == wire.OK && !wire.NamePrintable(q.Name) {
		code = wire.InvalidStreamName
	}
	if code != wire.OK {
		return nil, "", code
	}
	cat, _ := wire.CatalogFor(wire.ScopeStream)
	admitted, code := cat.AdmitCreate(q.Options)
	if code != wire.OK {
		return nil, "", code
	}
	keyOpts, code := n.newStreamKeyOptions(admitted.Secret)
	if code != wire.OK {
		return nil, "", code
	}
	return &metadata.CreateStream{Name: q.Name, Options: encodeOptions(append(admitted.Explicit, keyOpts...))}, "", wire.OK
}

func (n *Node) buildCreateTopic(c *conn, body []byte) (metadata.Command, string, wire.Code) {
	q, code := wire.DecodeCreateTopicRequest(body)
	if code == wire.OK && !wire.NamePrintable(q.Name) {
		code = wire.InvalidTopicName
	}
	if code != wire.OK {
		return nil, "", code
	}
	admitted, opts, code := wire.AdmitTopicCreate(q.Options, q.PartitionsCount)
	if code == wire.OK {
		n.deriveReplicationFactor(&admitted, &opts)
		code = n.topicRoom(c, q.StreamID, q.PartitionsCount)
	}
	if code == wire.OK && opts.ReplicationFactor > max(n.cfg.Replicas, 1) {
		code = wire.InvalidReplicationFactor // at most the node count (RES-31)
	}
	if code != wire.OK {
		return nil, "", code
	}
	return &metadata.CreateTopic{
		Stream: q.StreamID, Name: q.Name, PartitionsCount: q.PartitionsCount,
		ExplicitOptions: encodeOptions(admitted.Explicit), DerivedOptions: encodeOptions(admitted.Derived),
		MessageExpiry: opts.MessageExpiryMicros, MaxTopicSize: opts.MaxTopicSizeBytes,
		CompressionAlgorithm: uint8(opts.CompressionAlgorithm), ReplicationFactor: opts.ReplicationFactor,
		ResizePolicy: resizePolicy(opts.PartitionResizePolicy),
	}, "", wire.OK
}

// partitionsCountMax is the most partitions one create or delete may name.
const partitionsCountMax = 1000

func buildPartitions(op wire.Operation, body []byte) (metadata.Command, wire.Code) {
	q, code := wire.DecodePartitionsRequest(body)
	if code != wire.OK {
		return nil, code
	}
	if q.PartitionsCount == 0 || q.PartitionsCount > partitionsCountMax {
		return nil, wire.TooManyPartitions
	}
	if op == wire.OpCreatePartitions {
		return &metadata.CreatePartitions{Stream: q.StreamID, Topic: q.TopicID, Count: q.PartitionsCount}, wire.OK
	}
	return &metadata.DeletePartitions{Stream: q.StreamID, Topic: q.TopicID, Count: q.PartitionsCount}, wire.OK
}

// buildDeleteSegments turns a segment count into the truncation watermark
// the partition log computes (protocol-data.md 4).
func (n *Node) buildDeleteSegments(body []byte) (metadata.Command, string, wire.Code) {
	q, code := wire.DecodeDeleteSegmentsRequest(body)
	if code != wire.OK {
		return nil, "", code
	}
	s, t, code := n.meta.Topic(q.StreamID, q.TopicID)
	if code != wire.OK {
		return nil, "", code
	}
	// Only a member knows the partition's sealed segments, so only a member
	// can resolve the count: another replica answers 89, as it does every
	// request for the partition, and a routing client goes to its primary.
	k := partKey{s.ID, t.ID, q.PartitionID}
	if code := n.partitionCode(k); code != wire.OK {
		return nil, "", code
	}
	return &metadata.TruncatePartition{
		Stream: wire.NumericID(s.ID), Topic: wire.NumericID(t.ID), Partition: q.PartitionID,
		Watermark: n.sealedWatermark(k, q.SegmentsCount),
	}, "", wire.OK
}

func encodeOptions(o wire.Options) []byte {
	w := wire.Writer{}
	w.OptionsInOrder(o.Sorted())
	return w.Buf
}

func metadataClientID(id wire.U128) metadata.ClientID { return metadata.ClientID{Lo: id.Lo, Hi: id.Hi} }

// resizePolicy maps the option's wire value (1 mutable, 2 fixed) onto the
// metadata's (0 mutable, 1 fixed); the numbers differ, so no cast will do.
func resizePolicy(p wire.PartitionResizePolicy) metadata.ResizePolicy {
	if p == wire.ResizeFixed {
		return metadata.ResizeFixed
	}
	return metadata.ResizeMutable
}
