package metadata

import "github.com/iggygo/iggy/wire"

// Changes answers a history request (earliest, latest or after a cursor)
// from this replica's log. The request has passed DecodeChangesRequest.
func (s *State) Changes(q wire.ChangesRequest) wire.ChangesReply {
	l := &s.changes
	end := wire.ChangeCursor{History: l.history, Seq: l.lastSeq, Op: s.lastOp}
	if l.history == 0 {
		end.History = emptyHistory // an empty log still hands out a cursor
	}
	// earliest starts where the log is complete for the requested groups,
	// so a cursor taken from it expires only through later evictions.
	after := l.floor(q)
	switch q.Start {
	case wire.ChangeStartLatest:
		return wire.ChangesReply{Status: wire.ChangeStatusOK, Cursor: end.String()} // MCL-10
	case wire.ChangeStartCursor:
		c, _ := wire.ParseChangeCursor(q.Token)
		switch {
		case c.Op > s.lastOp:
			return wire.ChangesReply{Status: wire.ChangeStatusBehind} // MCL-22
		case !sameHistory(c, end.History) || c.Seq > l.lastSeq:
			return wire.ChangesReply{Status: wire.ChangeStatusReset} // MCL-24
		case l.lost(q, c.Seq):
			return wire.ChangesReply{Status: wire.ChangeStatusExpired} // MCL-23
		}
		after = c.Seq
	}
	return l.page(q, after, end)
}

// emptyHistory is the history an empty log hands out in its cursors.
const emptyHistory = 1

// sameHistory reports whether cursor c continues the log of history h. A
// cursor an empty log handed out (history 1, seq 0) has seen no record of
// any history, so it continues whichever history began since: before, a
// follower that started on a fresh node got reset at the first record.
func sameHistory(c wire.ChangeCursor, h uint64) bool {
	return c.History == h || (c.History == emptyHistory && c.Seq == 0)
}

// lost reports whether a ring holding a requested group evicted a record
// after seq.
func (l *changeLog) lost(q wire.ChangesRequest, seq uint64) bool { return l.floor(q) > seq }

// floor is the highest seq evicted from a ring holding a requested group.
func (l *changeLog) floor(q wire.ChangesRequest) uint64 {
	var f uint64
	for g := range wire.ChangeGroup(len(wire.ChangeGroupNames)) {
		if !q.Selects(g) {
			continue
		}
		if activityGroup(g) {
			f = max(f, l.activity.evictedSeq)
		} else {
			f = max(f, l.resource.evictedSeq)
		}
	}
	return f
}

// page merges both rings in seq order from after, keeping the records the
// request selects, up to its limit and the page byte bound (MCL-18, MCL-19).
func (l *changeLog) page(q wire.ChangesRequest, after uint64, end wire.ChangeCursor) wire.ChangesReply {
	out := wire.ChangesReply{Status: wire.ChangeStatusOK}
	i, j := l.resource.from(after), l.activity.from(after)
	rs, as := l.resource.records, l.activity.records
	bytes, last := 0, after
	for i < len(rs) || j < len(as) {
		var rec wire.ChangeRecord
		if j >= len(as) || (i < len(rs) && rs[i].Seq < as[j].Seq) {
			rec, i = rs[i], i+1
		} else {
			rec, j = as[j], j+1
		}
		if q.ToMicros != 0 && rec.TimeMicros > q.ToMicros {
			break // op times ascend: the cursor stays where the range ends
		}
		if !q.Selects(rec.Group) || rec.TimeMicros < q.FromMicros {
			last = rec.Seq
			continue
		}
		size := rec.EncodedBytes()
		if len(out.Records) == int(q.Limit) || (len(out.Records) > 0 && bytes+size > wire.ChangePageBytesMax) {
			out.HasMore = true
			break
		}
		out.Records = append(out.Records, rec)
		bytes += size
		last = rec.Seq
	}
	next := end
	if out.HasMore || last != end.Seq {
		next = wire.ChangeCursor{History: end.History, Seq: last, Op: l.opAt(last, end.Op)}
	}
	out.Cursor = next.String()
	return out
}

// opAt is the op of the record with seq, or fallback when it is gone.
func (l *changeLog) opAt(seq, fallback uint64) uint64 {
	for _, r := range []*changeRing{&l.resource, &l.activity} {
		if k := r.from(seq - 1); k < len(r.records) && r.records[k].Seq == seq {
			return r.records[k].Op
		}
	}
	return fallback
}

// from is the index of the first record with a seq above after.
func (r *changeRing) from(after uint64) int {
	lo, hi := 0, len(r.records)
	for lo < hi {
		m := (lo + hi) / 2
		if r.records[m].Seq <= after {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
