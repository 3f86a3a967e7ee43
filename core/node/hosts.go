package node

import (
	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
)

// The node composes group hosts: the metadata group's (n.mg) and one per
// partition of a replica set (pgroup.host). A host's disk requests carry
// the owner of its group, and come back to it here.

// hostOf finds the host a request of o belongs to: the metadata group's
// (gen 0), or a partition group's still of the incarnation that asked (g),
// or nil when that one is gone.
func (n *Node) hostOf(o owner) (h *group.Host, g *pgroup) {
	if o.gen == 0 {
		return n.mg, nil
	}
	if g = n.pgroups[o.part]; g == nil || g.gen != o.gen {
		return nil, nil
	}
	return g.host, g
}

// hostJournalCompletion passes a journal completion to its group's host,
// then applies what committed; besides flushes, the journal creates and
// deletes segment files.
func (n *Node) hostJournalCompletion(o owner, c storage.Completion) {
	h, g := n.hostOf(o)
	if h == nil || h.Replica() == nil {
		return
	}
	if !h.CompleteJournal(c) {
		n.fatal("%s: journal request %d failed: %s", h.Name(), c.ID, c.Err)
		return
	}
	n.applyHost(g)
}

// hostWriteCompletion passes an image or superblock write's completion to
// its group's host; a superblock made durable lets a partition group apply
// what waited for it.
func (n *Node) hostWriteCompletion(o owner, c storage.Completion) {
	h, g := n.hostOf(o)
	if h == nil {
		return
	}
	if c.Result != storage.ResultOK {
		n.fatal("%s: checkpoint or superblock write failed: %s", h.Name(), c.Err)
		return
	}
	if h.Complete(c) && g != nil {
		n.applyGroup(g)
	}
}

// applyHost applies what the group of g committed, the metadata group's
// when g is nil.
func (n *Node) applyHost(g *pgroup) {
	if g == nil {
		n.applyCommitted()
		return
	}
	n.applyGroup(g)
}

// flushHost carries out what a group's replica asked for after a batch of
// steps and sends its messages to peers under id; it returns a state
// transfer that arrived whole, for the group to install.
func (n *Node) flushHost(h *group.Host, id GroupID) *vsr.Install {
	msgs, in := h.Flush()
	for _, m := range msgs {
		n.ready.Peers = append(n.ready.Peers, PeerMessage{Group: id, Msg: m})
	}
	return in
}
