package node_test

import (
	"fmt"
	"strings"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

func encode(f func(*wire.Writer)) []byte {
	w := wire.Writer{}
	f(&w)
	return w.Buf
}

// create-stream c name
func cmdCreateStream(w *world, a *args) {
	c := w.clientOf(a)
	body := encode(wire.CreateStreamRequest{Name: a.arg(1)}.Encode)
	a.done(2)
	w.call(c, "create-stream", wire.CmdCreateStream, body, func(_ *world, _ *simClient, p []byte) string {
		r := wire.NewReader(p)
		s := r.StreamResponse()
		if r.Err() != wire.OK || r.Len() != 0 {
			return "malformed stream"
		}
		return fmt.Sprintf("ok stream id=%d name=%s", s.ID, s.Name)
	})
	w.finish()
}

// delete-stream c stream
func cmdDeleteStream(w *world, a *args) {
	c := w.clientOf(a)
	body := encode(wire.StreamRef{StreamID: ident(a.arg(1))}.Encode)
	a.done(2)
	w.call(c, "delete-stream", wire.CmdDeleteStream, body, decodeEmpty)
	w.finish()
}

// get-stream c stream
func cmdGetStream(w *world, a *args) {
	c := w.clientOf(a)
	body := encode(wire.StreamRef{StreamID: ident(a.arg(1))}.Encode)
	a.done(2)
	w.call(c, "get-stream", wire.CmdGetStream, body, func(_ *world, _ *simClient, p []byte) string {
		d, found, code := wire.DecodeStreamDetails(p)
		switch {
		case code != wire.OK:
			return "malformed stream details: " + code.Name()
		case !found:
			return "not found"
		}
		names := make([]string, len(d.Topics))
		for i, t := range d.Topics {
			names[i] = fmt.Sprintf("%d:%s", t.ID, t.Name)
		}
		return fmt.Sprintf("stream id=%d name=%s messages=%d topics=[%s]",
			d.Stream.ID, d.Stream.Name, d.Stream.MessagesCount, strings.Join(names, " "))
	})
	w.finish()
}

// get-streams c
func cmdGetStreams(w *world, a *args) {
	c := w.clientOf(a)
	a.done(1)
	w.call(c, "get-streams", wire.CmdGetStreams, nil, func(_ *world, _ *simClient, p []byte) string {
		streams, code := wire.DecodeStreams(p)
		if code != wire.OK {
			return "malformed streams: " + code.Name()
		}
		names := make([]string, len(streams))
		for i, s := range streams {
			names[i] = fmt.Sprintf("%d:%s", s.ID, s.Name)
		}
		return fmt.Sprintf("streams [%s]", strings.Join(names, " "))
	})
	w.finish()
}

// create-topic c stream name partitions=N [key=value...]: every other
// key=value is a topic option, sent with String kind.
func cmdCreateTopic(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.CreateTopicRequest{StreamID: ident(a.arg(1)), Name: a.arg(2), PartitionsCount: a.u32("partitions", 1)}
	for _, kv := range a.rest() {
		k, v, _ := strings.Cut(kv, "=")
		q.Options = append(q.Options, wire.Option{Key: k, Kind: wire.KindString, Value: []byte(v)})
	}
	a.done(3)
	w.call(c, "create-topic", wire.CmdCreateTopic, encode(q.Encode), decodeTopic)
	w.finish()
}

func decodeTopic(_ *world, _ *simClient, p []byte) string {
	d, found, code := wire.DecodeTopicDetails(p)
	switch {
	case code != wire.OK:
		return "malformed topic details: " + code.Name()
	case !found:
		return "not found"
	}
	parts := make([]string, len(d.Partitions))
	for i, p := range d.Partitions {
		parts[i] = fmt.Sprintf("%d:%d", p.ID, p.MessagesCount)
	}
	durability := "replicated"
	for _, block := range []wire.Options{d.Topic.Derived, d.Topic.Explicit} {
		if o, ok := block.Get(wire.OptDurability); ok {
			durability = string(o.Value)
		}
	}
	return fmt.Sprintf("topic id=%d name=%s durability=%s messages=%d partitions=[%s]",
		d.Topic.ID, d.Topic.Name, durability, d.Topic.MessagesCount, strings.Join(parts, " "))
}

// delete-topic c stream topic
func cmdDeleteTopic(w *world, a *args) {
	c := w.clientOf(a)
	body := encode(wire.TopicRef{StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2))}.Encode)
	a.done(3)
	w.call(c, "delete-topic", wire.CmdDeleteTopic, body, decodeEmpty)
	w.finish()
}

// delete-segments c stream topic partition=N count=N
func cmdDeleteSegments(w *world, a *args) {
	c := w.clientOf(a)
	body := encode(wire.DeleteSegmentsRequest{StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2)),
		PartitionID: a.u32("partition", 0), SegmentsCount: a.u32("count", 1)}.Encode)
	a.done(3)
	w.call(c, "delete-segments", wire.CmdDeleteSegments, body, decodeEmpty)
	w.finish()
}

// get-topic c stream topic
func cmdGetTopic(w *world, a *args) {
	c := w.clientOf(a)
	body := encode(wire.TopicRef{StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2))}.Encode)
	a.done(3)
	w.call(c, "get-topic", wire.CmdGetTopic, body, decodeTopic)
	w.finish()
}

// create-user c name password [perms=right,right...]: global rights by
// their wire names (poll_messages, send_messages, read_streams, ...).
func cmdCreateUser(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.CreateUserRequest{Username: a.arg(1), Password: a.arg(2), Status: wire.UserStatusActive,
		Permissions: permsOf(a)}
	a.done(3)
	w.call(c, "create-user", wire.CmdCreateUser, encode(q.Encode), func(_ *world, _ *simClient, p []byte) string {
		d, code := wire.DecodeUserDetails(p)
		if code != wire.OK {
			return "malformed user details: " + code.Name()
		}
		return fmt.Sprintf("ok user id=%d name=%s", d.ID, d.Username)
	})
	w.finish()
}

// update-permissions c user [perms=right,right...]: replace a user's global
// rights (none without perms).
func cmdUpdatePermissions(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.UpdatePermissionsRequest{UserID: ident(a.arg(1)), Permissions: permsOf(a)}
	a.done(2)
	w.call(c, "update-permissions", wire.CmdUpdatePermissions, encode(q.Encode), decodeEmpty)
	w.finish()
}

func permsOf(a *args) *wire.Permissions {
	s := a.str("perms", "")
	if s == "" {
		return nil
	}
	p := &wire.Permissions{}
	for _, name := range strings.Split(s, ",") {
		f, ok := globalRight(&p.Global, name)
		if !ok {
			a.fail("unknown right %q", name)
		}
		*f = true
	}
	return p
}

func globalRight(g *wire.GlobalPermissions, name string) (*bool, bool) {
	rights := map[string]*bool{
		"manage_servers": &g.ManageServers, "read_servers": &g.ReadServers, "manage_users": &g.ManageUsers,
		"read_users": &g.ReadUsers, "manage_streams": &g.ManageStreams, "read_streams": &g.ReadStreams,
		"manage_topics": &g.ManageTopics, "read_topics": &g.ReadTopics, "poll_messages": &g.PollMessages,
		"send_messages": &g.SendMessages,
	}
	f, ok := rights[name]
	return f, ok
}

// send c stream topic (partition=N | balanced | key=K) count=N [size=N]:
// one batch whose payloads name it ("b<batch>#<index>").
func cmdSend(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.SendMessagesRequest{StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2))}
	switch {
	case a.flag("balanced"):
		q.Partitioning = wire.Partitioning{Kind: wire.PartitioningBalanced}
	case a.has("key"):
		q.Partitioning = wire.Partitioning{Kind: wire.PartitioningMessagesKey, Key: []byte(a.str("key", ""))}
	default:
		q.Partitioning = wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: a.u32("partition", 0)}
	}
	count := int(a.u64("count", 1))
	b, rec := w.batchRecord(a, count, int(a.u64("size", 0)))
	q.MessagesCount, q.Batch = uint32(count), rec
	a.done(3)
	w.call(c, "send", wire.CmdSendMessages, encode(q.Encode), func(_ *world, _ *simClient, p []byte) string {
		confs, code := wire.DecodeSendConfirmations(p)
		if code != wire.OK || len(confs) != 1 {
			return fmt.Sprintf("malformed send confirmation (%d bytes)", len(p))
		}
		return fmt.Sprintf("ok b%d partition=%d base_offset=%d", b, confs[0].PartitionID, confs[0].BaseOffset)
	})
	w.finish()
}

// poll c stream topic partition=N (offset=N | next) count=N [consumer=ID] [auto-commit]
func cmdPoll(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.PollMessagesRequest{Consumer: consumerOf(a), StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2)),
		Partition: partitionOf(a), Count: a.u32("count", 100), AutoCommit: a.flag("auto-commit"),
		Strategy: wire.PollingStrategy{Kind: wire.PollOffset, Value: a.u64("offset", 0)}}
	if a.flag("next") {
		q.Strategy = wire.PollingStrategy{Kind: wire.PollNext}
	}
	a.done(3)
	w.call(c, "poll", wire.CmdPollMessages, encode(q.Encode), decodePoll)
	w.finish()
}

// decodePoll checks every record (layout and checksums of whole records,
// consecutive offsets) and names the batches the messages came from.
func decodePoll(_ *world, _ *simClient, p []byte) string {
	polled, code := wire.DecodePolledMessages(p)
	if code != wire.OK {
		return "malformed poll reply: " + code.Name()
	}
	var offsets []uint64
	var runs []string
	lastB, lastI := uint64(0), -2
	for _, rec := range polled.Records {
		h := batch.ParseHeader(rec)
		frames := batch.FramesOf(rec)
		for f, ok := frames.Next(); ok; f, ok = frames.Next() {
			if f.OffsetDelta == 0 {
				if _, code := batch.Validate(rec); code != wire.OK {
					return fmt.Sprintf("bad record at offset %d: %s", h.BaseOffset, code.Name())
				}
			}
			offsets = append(offsets, h.BaseOffset+uint64(f.OffsetDelta))
			b, i, ok := parsePayload(f.Payload)
			if !ok {
				return fmt.Sprintf("foreign payload %q", f.Payload)
			}
			if b == lastB && i == lastI+1 {
				runs[len(runs)-1] = fmt.Sprintf("%s-%d", strings.Split(runs[len(runs)-1], "-")[0], i)
			} else {
				runs = append(runs, fmt.Sprintf("b%d#%d", b, i))
			}
			lastB, lastI = b, i
		}
		if frames.Err() != wire.OK {
			return "bad frames: " + frames.Err().Name()
		}
	}
	pre := polled.Prefix
	if int(pre.MessagesCount) != len(offsets) {
		return fmt.Sprintf("poll declares %d messages, records hold %d", pre.MessagesCount, len(offsets))
	}
	if len(offsets) == 0 {
		return fmt.Sprintf("polled 0 partition=%d current=%d", pre.PartitionID, pre.CurrentOffset)
	}
	for i := range offsets {
		if offsets[i] != offsets[0]+uint64(i) {
			return fmt.Sprintf("offsets not consecutive: %v", offsets)
		}
	}
	return fmt.Sprintf("polled %d partition=%d offsets %d..%d current=%d [%s]", len(offsets), pre.PartitionID,
		offsets[0], offsets[len(offsets)-1], pre.CurrentOffset, strings.Join(runs, " "))
}

func offsetRef(a *args) wire.ConsumerOffsetRef {
	return wire.ConsumerOffsetRef{Consumer: consumerOf(a), StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2)),
		Partition: partitionOf(a)}
}

// store-offset c stream topic partition=N offset=N [consumer=ID] [inc=N]
func cmdStoreOffset(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(a), Offset: a.u64("offset", 0), Ack: wire.AckQuorum,
		Incarnation: a.u64("inc", 0)}
	a.done(3)
	w.call(c, "store-offset", wire.CmdStoreConsumerOffset, encode(q.Encode), decodeEmpty)
	w.finish()
}

// delete-offset c stream topic partition=N [consumer=ID]
func cmdDeleteOffset(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.DeleteConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(a), Ack: wire.AckQuorum}
	a.done(3)
	w.call(c, "delete-offset", wire.CmdDeleteConsumerOffset, encode(q.Encode), decodeEmpty)
	w.finish()
}

// get-offset c stream topic partition=N [consumer=ID]
func cmdGetOffset(w *world, a *args) {
	c := w.clientOf(a)
	ref := offsetRef(a)
	a.done(3)
	w.call(c, "get-offset", wire.CmdGetConsumerOffset, encode(ref.Encode), func(_ *world, _ *simClient, p []byte) string {
		o, found, code := wire.DecodeConsumerOffsetInfo(p)
		switch {
		case code != wire.OK:
			return "malformed offset: " + code.Name()
		case !found:
			return "no offset stored"
		}
		return fmt.Sprintf("offset partition=%d stored=%d current=%d", o.PartitionID, o.StoredOffset, o.CurrentOffset)
	})
	w.finish()
}
