package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// nonReplicated dispatches operation 2 by its command code (protocol-framing.md 5).
func (n *Node) nonReplicated(c *conn, h wire.RequestHeader, body []byte) {
	code := h.NRCode
	switch {
	case wire.CommandLegacyLogin(code):
		n.evict(c, h, wire.EvictMalformedLogin)
		return
	case code == wire.CmdBindSession:
		n.bindSession(c, h, body)
		return
	case !c.bound && code != wire.CmdPing:
		n.deny(c, h, wire.Unauthenticated)
		return
	}
	if (code == wire.CmdPollMessages || code == wire.CmdDeferredPoll || code == wire.CmdGetConsumerOffset) && n.denyWithoutEvidence(c, h) {
		return
	}
	if read, ok := n.readers[code]; ok {
		if n.parkView(c, h, body, code) {
			return
		}
		read(c, h, body)
		return
	}
	switch {
	case code == wire.CmdFlushUnsavedBuffer:
		n.deny(c, h, wire.FeatureUnavailable)
	case !wire.CommandServed(code) || wire.CommandRetired(code):
		n.deny(c, h, wire.InvalidCommand)
	case wire.CommandReplicated(code):
		n.deny(c, h, wire.FeatureUnavailable)
	default:
		n.deny(c, h, wire.FeatureUnavailable) // a known command this build does not serve yet
	}
}

type reader func(c *conn, h wire.RequestHeader, body []byte)

// newReaders is the dispatch table of the NR reads, built once per node.
func (n *Node) newReaders() map[wire.Command]reader {
	return map[wire.Command]reader{
		wire.CmdPing:                    func(c *conn, h wire.RequestHeader, _ []byte) { n.raw(c, h) },
		wire.CmdPollMessages:            n.poll,
		wire.CmdDeferredPoll:            n.deferredPoll,
		wire.CmdCancelDeferredPoll:      n.cancelDeferred,
		wire.CmdGroupedDeferredFetch:    n.groupedFetch,
		wire.CmdGetConsumerOffset:       n.getOffset,
		wire.CmdGetStream:               n.getStream,
		wire.CmdGetStreams:              n.getStreams,
		wire.CmdGetTopic:                n.getTopic,
		wire.CmdGetTopics:               n.getTopics,
		wire.CmdGetUser:                 n.getUser,
		wire.CmdGetUsers:                n.getUsers,
		wire.CmdGetPersonalAccessTokens: n.getTokens,
		wire.CmdGetConsumerGroup:        n.getGroup,
		wire.CmdGetConsumerGroups:       n.getGroups,
		wire.CmdSyncConsumerGroup:       n.syncGroup,
		wire.CmdGetClusterMetadata:      n.getClusterMetadata,
		wire.CmdDescribeOptions:         n.describeOptions,
		wire.CmdGetMe:                   n.getMe,
		wire.CmdGetClients:              n.getClients,
		wire.CmdGetClient:               n.getClient,
		wire.CmdGetStats:                n.getStats,
		wire.CmdGetSnapshotFile:         n.getSnapshotFile,
		wire.CmdDumpFlightRecorder:      n.dumpFlightRecorder,
		wire.CmdPartitionRoutes:         n.partitionRoutes,
		wire.CmdGetMetadataChanges:      n.getMetadataChanges,
		wire.CmdNextProducerID:          n.nextProducerID,
	}
}

// topicFor resolves a stream and topic and checks action on them; on a
// failure it has already answered with the status (1009, 2010 or 41).
func (n *Node) topicFor(c *conn, h wire.RequestHeader, stream, topic wire.Identifier, action metadata.Action) (*metadata.Stream, *metadata.Topic, bool) {
	return n.topicOr(c, h, stream, topic, action, n.deny)
}

// topicOr is topicFor answering a failure through deny.
func (n *Node) topicOr(c *conn, h wire.RequestHeader, stream, topic wire.Identifier, action metadata.Action,
	deny func(*conn, wire.RequestHeader, wire.Code)) (*metadata.Stream, *metadata.Topic, bool) {
	s, t, code := n.meta.Topic(stream, topic)
	if code == wire.OK && !n.meta.Authorize(c.userID, action, s.ID, t.ID) {
		code = wire.Unauthorized
	}
	if code != wire.OK {
		deny(c, h, code)
		return nil, nil, false
	}
	return s, t, true
}

// allowed checks a global read right for NR reads (5: 41 on failure).
func (n *Node) allowed(c *conn, h wire.RequestHeader, action metadata.Action) bool {
	if n.meta.Authorize(c.userID, action, 0, 0) {
		return true
	}
	n.deny(c, h, wire.Unauthorized)
	return false
}

func (n *Node) getStream(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeStreamRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	s, ok := n.meta.Stream(q.StreamID)
	if !ok {
		n.raw(c, h)
		return
	}
	if !n.meta.Authorize(c.userID, metadata.ActionReadStreams, s.ID, 0) {
		n.deny(c, h, wire.Unauthorized)
		return
	}
	d := wire.StreamDetails{Stream: n.streamResponse(s)}
	for _, t := range s.Topics {
		d.Topics = append(d.Topics, n.topicHeader(s, t))
	}
	w := wire.Writer{}
	d.Encode(&w)
	n.raw(c, h, w.Buf)
}

func (n *Node) getStreams(c *conn, h wire.RequestHeader, _ []byte) {
	var out []wire.StreamResponse
	for _, s := range n.meta.Streams() {
		if n.meta.Authorize(c.userID, metadata.ActionReadStreams, s.ID, 0) {
			out = append(out, n.streamResponse(s))
		}
	}
	w := wire.Writer{}
	wire.EncodeStreams(&w, out)
	n.raw(c, h, w.Buf)
}

func (n *Node) getTopic(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeTopicRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	s, t, code := n.meta.Topic(q.StreamID, q.TopicID)
	if code != wire.OK {
		n.raw(c, h)
		return
	}
	if !n.meta.Authorize(c.userID, metadata.ActionReadTopics, s.ID, t.ID) {
		n.deny(c, h, wire.Unauthorized)
		return
	}
	w := wire.Writer{}
	n.topicDetails(s, t).Encode(&w)
	n.raw(c, h, w.Buf)
}

func (n *Node) getTopics(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeStreamRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	var out []wire.TopicHeader
	if s, ok := n.meta.Stream(q.StreamID); ok {
		for _, t := range s.Topics {
			if n.meta.Authorize(c.userID, metadata.ActionReadTopics, s.ID, t.ID) {
				out = append(out, n.topicHeader(s, t))
			}
		}
	}
	w := wire.Writer{}
	wire.EncodeTopics(&w, out)
	n.raw(c, h, w.Buf)
}

func (n *Node) getUser(c *conn, h wire.RequestHeader, body []byte) {
	id, code := wire.DecodeUserIdentifier(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	u, ok := n.meta.User(id)
	if ok && u.ID != c.userID && !n.allowed(c, h, metadata.ActionReadUsers) {
		return
	}
	if !ok {
		n.raw(c, h)
		return
	}
	w := wire.Writer{}
	userDetails(u).Encode(&w)
	n.raw(c, h, w.Buf)
}

func (n *Node) getUsers(c *conn, h wire.RequestHeader, _ []byte) {
	if !n.allowed(c, h, metadata.ActionReadUsers) {
		return
	}
	var out []wire.UserInfo
	for _, u := range n.meta.Users() {
		out = append(out, userDetails(u).UserInfo)
	}
	w := wire.Writer{}
	wire.EncodeUsers(&w, out)
	n.raw(c, h, w.Buf)
}

func (n *Node) getTokens(c *conn, h wire.RequestHeader, _ []byte) {
	var out []wire.PATInfo
	for _, t := range n.meta.Tokens(c.userID) {
		out = append(out, wire.PATInfo{Name: t.Name, ExpiryAt: t.ExpiryAtMicros})
	}
	w := wire.Writer{}
	wire.EncodePATs(&w, out)
	n.raw(c, h, w.Buf)
}

func (n *Node) describeOptions(c *conn, h wire.RequestHeader, body []byte) {
	scope, code := wire.DecodeDescribeOptionsRequest(body)
	cat, code2 := wire.CatalogFor(scope)
	if code != wire.OK || code2 != wire.OK {
		n.deny(c, h, wire.InvalidCommand)
		return
	}
	w := wire.Writer{}
	wire.EncodeDescribeOptions(&w, cat)
	n.raw(c, h, w.Buf)
}
