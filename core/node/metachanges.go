package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// getMetadataChanges serves GetMetadataChanges (17, MCL-5): root or
// manage_servers only, checked before the body so every other caller gets
// 41 whatever it asks for (MCL-7, MCL-8).
func (n *Node) getMetadataChanges(c *conn, h wire.RequestHeader, body []byte) {
	if !n.allowed(c, h, metadata.ActionManageServers) {
		return
	}
	q, code := wire.DecodeChangesRequest(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	w := &wire.Writer{}
	if q.Start == wire.ChangeStartCurrent {
		wire.EncodeChangesReply(w, n.meta.Current(q))
	} else {
		wire.EncodeChangesReply(w, n.meta.Changes(q))
	}
	n.raw(c, h, w.Buf)
}

// sizeChangeLog applies the configured ring capacities to the state (after
// boot and after every image install: capacities are configuration).
func (n *Node) sizeChangeLog() {
	res, act := int(n.cfg.ChangeLogResourceCapacity), int(n.cfg.ChangeLogActivityCapacity)
	if res == 0 {
		res = metadata.ChangeLogResourceCapacityDefault
	}
	if act == 0 {
		act = metadata.ChangeLogActivityCapacityDefault
	}
	n.meta.SetChangeLogCapacity(res, act)
}

// MetadataChanges answers a history request from this node's log, as
// command 17 would, for the simulator's change log oracle.
func (n *Node) MetadataChanges(q wire.ChangesRequest) wire.ChangesReply { return n.meta.Changes(q) }
