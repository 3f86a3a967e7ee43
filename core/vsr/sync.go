package vsr

import "github.com/iggygo/iggy/internal/assert"

// Timeouts.RepairOps bounds the prepares asked for, and sent, in one
// repair round (cluster.repair_chunk_max): 128 by default, at most 1024.
const (
	repairOpsDefault = 128
	repairOpsMax     = 1024
)

// repairBytesMax bounds the body bytes of one repair reply; the first
// prepare always goes, so a reply is never empty.
const repairBytesMax = 4 << 20

// syncPurpose says why a log is being repaired, and so what happens when
// it matches its source.
type syncPurpose uint8

const (
	// syncCatchUp: a backup of the view fetches ops it missed.
	syncCatchUp syncPurpose = iota + 1
	// syncInstall: a backup makes its log the new view's (start_view).
	syncInstall
	// syncElect: the new primary makes its log the chosen log of the votes.
	syncElect
)

// syncState is a repair under way: the log is made equal to a source
// replica's log up to head. One request is in flight at a time.
type syncState struct {
	active       bool
	purpose      syncPurpose
	source       uint8
	head         uint64
	headChecksum uint64
	parent       uint64    // checksum of the op before suffix[0]
	suffix       []Prepare // the source's last prepares, ending at head
	commit       uint64    // the commit point the source announced
	cursor       uint64    // the log equals the source's up to here
	requested    bool
	requestedOp  uint64 // first op of the request in flight
	requestedAt  uint64
	complete     bool // cursor reached head
}

// beginSync starts making the log equal to source's up to head. A catch-up
// trusts the log as it is (a backup of the view holds a prefix of the
// view's log); an install or election trusts only the committed prefix
// until the source's prepares show where the logs part.
func (r *Replica) beginSync(purpose syncPurpose, source uint8, head, headChecksum, parent uint64, suffix []Prepare, commit uint64) {
	cursor := r.commit
	if purpose == syncCatchUp {
		cursor = r.log.head()
	}
	r.sync = syncState{active: true, purpose: purpose, source: source, head: head, headChecksum: headChecksum,
		parent: parent, suffix: suffix, commit: commit, cursor: max(cursor, r.log.base)}
	r.syncAdvance()
}

// catchUp starts or extends a catch-up toward the primary's head.
func (r *Replica) catchUp(head, checksum uint64) {
	if !r.installed() {
		return
	}
	if r.sync.active {
		if r.sync.purpose == syncCatchUp && head > r.sync.head {
			r.sync.head, r.sync.headChecksum, r.sync.complete = head, checksum, false
		}
		return
	}
	r.marks.Hit("vsr.repair.catch_up")
	r.beginSync(syncCatchUp, r.Primary(), head, checksum, 0, nil, 0)
}

// syncAdvance moves the cursor over what the log or the suffix already
// provides, then asks the source for the rest.
func (r *Replica) syncAdvance() {
	s := &r.sync
	for s.active && !s.complete && !r.transfer.emitted {
		if s.cursor < s.head && r.log.has(s.head, s.headChecksum) {
			s.cursor = s.head // the same prepare means the same log up to it
			continue
		}
		if n := len(s.suffix); n > 0 && s.cursor+1 < s.suffix[0].Op && r.log.has(s.suffix[0].Op-1, s.parent) {
			s.cursor = s.suffix[0].Op - 1
			continue
		}
		next := s.cursor + 1
		if next > s.head {
			s.complete = true
			r.syncComplete()
			return
		}
		if p, parent, ok := s.fromSuffix(next); ok {
			if !r.log.has(s.cursor, parent) {
				r.syncDiverged()
				continue
			}
			r.place(p)
			s.cursor = next
			continue
		}
		r.requestRepair()
		return
	}
}

// fromSuffix returns the suffix's prepare of op and its parent's checksum.
func (s *syncState) fromSuffix(op uint64) (Prepare, uint64, bool) {
	if len(s.suffix) == 0 || op < s.suffix[0].Op {
		return Prepare{}, 0, false
	}
	i := op - s.suffix[0].Op
	if i == 0 {
		return s.suffix[0], s.parent, true
	}
	return s.suffix[i], s.suffix[i-1].Checksum, true
}

// place makes p the log's prepare of its op: kept if already there,
// otherwise the log is cut before it (what follows belonged to another
// view's log) and p appended.
func (r *Replica) place(p Prepare) {
	if r.log.has(p.Op, p.Checksum) {
		return
	}
	if p.Op <= r.commit {
		assert.Failf("vsr: op %d replaced at or below commit %d", p.Op, r.commit)
	}
	r.truncateLocal(p.Op - 1)
	raw := Seal(&p)
	r.appendLocal(p, raw)
}

// syncDiverged handles a source prepare that does not continue the log at
// the cursor: the log parted from the source's below it, so verification
// starts again from the commit point, which every log shares.
func (r *Replica) syncDiverged() {
	s := &r.sync
	s.requested = false
	if s.cursor > r.commit && s.cursor > r.log.base {
		r.marks.Hit("vsr.repair.diverged")
		s.cursor = max(r.commit, r.log.base)
		return
	}
	r.abortSync()
}

// abortSync gives up a repair whose source contradicts itself (a stale or
// corrupt message). A backup installing a view asks for it again; a new
// primary waits for its view change to time out.
func (r *Replica) abortSync() {
	r.marks.Hit("vsr.repair.inconsistent")
	purpose := r.sync.purpose
	r.sync = syncState{}
	if purpose == syncInstall {
		r.enterRecovering()
	}
}

// requestRepair asks the source for the next range, unless a request is
// in flight and not yet timed out.
func (r *Replica) requestRepair() {
	s := &r.sync
	if s.requested && r.now-s.requestedAt < r.t.RepairTicks || !r.viewDurable() {
		return
	}
	if s.source == r.id {
		assert.Failf("repairing from self: cursor %d head %d", s.cursor, s.head)
	}
	end := s.head
	if len(s.suffix) > 0 {
		end = s.suffix[0].Op - 1
	}
	first := s.cursor + 1
	last := min(end, first+r.t.RepairOps-1)
	// An inverted range would ask for nothing and stall the repair (VSR-29):
	// the cursor never passes what the suffix or the head still needs.
	if first > last {
		assert.Failf("repair range %d..%d inverted (cursor %d head %d end %d)", first, last, s.cursor, s.head, end)
	}
	r.marks.Hit("vsr.repair.requested")
	r.send(Message{Command: CmdRequestPrepares, To: s.source, View: r.view, Op: first, Last: last})
	s.requested, s.requestedOp, s.requestedAt = true, first, r.now
}

// onRequestPrepares serves a range from the log. A peer of the same view
// asks only its source (the primary, or the chosen log's owner), whose log
// is the one it must copy; ops no longer held send it to state transfer.
func (r *Replica) onRequestPrepares(m *Message) {
	if m.View != r.view || m.Op == 0 || m.Last < m.Op {
		return
	}
	if m.Op <= r.log.base {
		r.send(Message{Command: CmdRangeEvicted, To: m.From, View: r.view, Op: m.Op})
		return
	}
	if m.Op > r.log.head() {
		return
	}
	last := min(m.Last, m.Op+r.t.RepairOps-1, r.log.head())
	ps := r.log.copyRange(m.Op, last)
	size := 0
	for i := range ps {
		size += len(ps[i].Body)
		if i > 0 && size > repairBytesMax {
			ps = ps[:i]
			break
		}
	}
	parent, _ := r.log.checksumAt(m.Op - 1)
	r.send(Message{Command: CmdRepairPrepare, To: m.From, View: r.view, Op: m.Op, Parent: parent, Prepares: ps})
}

// onRepairPrepare takes the prepares that continue the log at the cursor.
// A reply may start below it: prepares pushed meanwhile (or an earlier
// reply) moved the cursor, and the reply still brings what follows. Any
// reply to the request in flight ends it even so, and the next one goes
// out now rather than after RepairTicks: under load, reordered pushes and
// repairs race all the time, and a dropped reply would stall the backup's
// acknowledgements, hence the commits, for a whole retry interval. Replies
// to older requests (or duplicates) only bring prepares: if each sent a
// request, duplicated replies would multiply the requests.
func (r *Replica) onRepairPrepare(m *Message) {
	s := &r.sync
	if !s.active || s.complete || m.From != s.source || m.View != r.view || m.Op == 0 || m.Op > s.cursor+1 || r.transfer.emitted {
		return
	}
	if m.Op == s.requestedOp {
		s.requested = false
	}
	parent := m.Parent
	for i := range m.Prepares {
		p := m.Prepares[i]
		if _, ok := Verify(&p); !ok || p.Op != m.Op+uint64(i) {
			r.marks.Hit("vsr.message.corrupt")
			break
		}
		if p.Op <= s.cursor {
			parent = p.Checksum // already in place; the link below checks it
			continue
		}
		if !r.log.has(s.cursor, parent) {
			r.syncDiverged()
			break
		}
		r.place(p)
		s.cursor = p.Op
		if s.purpose == syncCatchUp && p.Op > s.head {
			s.head, s.headChecksum = p.Op, p.Checksum
		}
		parent = p.Checksum
	}
	r.syncAdvance()
}

// syncComplete runs when the log matches the source up to head.
func (r *Replica) syncComplete() {
	s := &r.sync
	if !r.log.has(s.head, s.headChecksum) {
		r.abortSync()
		return
	}
	if s.purpose == syncCatchUp {
		r.marks.Hit("vsr.repair.done")
		*s = syncState{}
		r.ackDue = true
		return
	}
	// Prepares after the head are leftovers of older views: the new
	// view's log ends at head.
	r.truncateLocal(s.head)
}

// readyToAdopt reports whether an install or election holds the view's log
// durably, and no file still holds ops of an older view after it, so the
// log view may be raised: the superblock then names it.
func (s *syncState) readyToAdopt(r *Replica) (uint64, bool) {
	ok := s.active && s.complete && s.purpose != syncCatchUp &&
		r.log.head() == s.head && r.journal.DurableOp() >= s.head && r.journal.Settled()
	return s.head, ok
}
