package node

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// A purge or a segment deletion changes a hosted partition's counters on
// its host, after the front already replied to the op. Until every such
// host has applied it and sent its counters (shardApplied), the front's
// mirror may be stale, so the views that read it wait: a client that
// purged a topic and then reads it sees it empty.

// parkedViewsMax bounds the views waiting for hosts: one per connection at
// most (a connection is busy while its view waits).
const parkedViewsMax = 1 << 16

type parkedView struct {
	c    *conn
	h    wire.RequestHeader
	body []byte
	code wire.Command
}

// readsMirror says whether a view reads hosted partitions' counters.
func readsMirror(code wire.Command) bool {
	switch code {
	case wire.CmdGetStream, wire.CmdGetStreams, wire.CmdGetTopic, wire.CmdGetTopics, wire.CmdGetStats:
		return true
	}
	return false
}

// awaitApplied counts a purge or truncation handed to a host.
func (n *Node) awaitApplied() { n.mirrorWaits++ }

// parkView holds a view while hosts still apply purges or truncations.
func (n *Node) parkView(c *conn, h wire.RequestHeader, body []byte, code wire.Command) bool {
	if n.mirrorWaits == 0 || !readsMirror(code) {
		return false
	}
	n.cfg.Marks.Hit("node.shard.view_parked")
	if len(n.parkedViews) >= parkedViewsMax {
		assert.Failf("%d views wait for hosts", len(n.parkedViews))
	}
	n.parkedViews = append(n.parkedViews, parkedView{c: c, h: h, body: body, code: code})
	return true
}

// mirrorApplied: a host applied one; once all did, the views run in order.
func (n *Node) mirrorApplied() {
	n.mirrorWaits--
	if n.mirrorWaits > 0 {
		return
	}
	parked := n.parkedViews
	n.parkedViews = nil
	for _, v := range parked {
		if _, open := n.conns[v.c.id]; open {
			n.readers[v.code](v.c, v.h, v.body)
		}
	}
}
