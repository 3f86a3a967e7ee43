package metadata

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// The metadata change log (MCL-1..34): the public results of committed
// operations, produced here at apply so every replica holds the same
// records (MCL-4), kept in two bounded rings so session and membership
// churn never evicts resource history (MCL-29, MCL-30), and carried in the
// snapshot (MCL-33, MCL-34).
const (
	// ChangeLogResourceCapacityDefault and ChangeLogActivityCapacityDefault
	// are the rings' record capacities unless configured (MCL-29, MCL-30).
	ChangeLogResourceCapacityDefault = 65536
	ChangeLogActivityCapacityDefault = 16384
	// ChangeLogCapacityMax bounds both capacities (MCL-31).
	ChangeLogCapacityMax = 1 << 20
	// changeRingBodyBytesMax bounds each ring's record bodies (MCL-32).
	changeRingBodyBytesMax = 128 << 20
	// changeKindBytesMax bounds a record's kind text.
	changeKindBytesMax = 64
)

// changeRing is one ring: records in ascending seq, oldest first.
type changeRing struct {
	records   []wire.ChangeRecord
	bodyBytes int
	// evictedSeq is the highest seq this ring has evicted (0 = none): a
	// cursor below it has lost records of this ring's groups (MCL-23).
	evictedSeq uint64
}

// changeLog is the state's log. history names this history: the time of
// its first op, so a rebuilt data directory gives cursors status reset.
type changeLog struct {
	history  uint64
	lastSeq  uint64
	resource changeRing
	activity changeRing
	// capacities are configuration (equal on every replica), not state.
	resourceCap int
	activityCap int
}

// activityGroup reports whether records of g go to the activity ring.
func activityGroup(g wire.ChangeGroup) bool {
	return g == wire.GroupSessions || g == wire.GroupConsumerGroupMembers
}

// SetChangeLogCapacity sets the rings' record capacities (1..1048576 each,
// checked by the config loader) and evicts what no longer fits.
func (s *State) SetChangeLogCapacity(resource, activity int) {
	assert.That(resource >= 1 && resource <= ChangeLogCapacityMax, "resource capacity out of range")
	assert.That(activity >= 1 && activity <= ChangeLogCapacityMax, "activity capacity out of range")
	s.changes.resourceCap, s.changes.activityCap = resource, activity
	s.changes.resource.trim(resource)
	s.changes.activity.trim(activity)
}

// appendChange adds one record with the next seq to its ring.
func (s *State) appendChange(ctx Ctx, rec wire.ChangeRecord) {
	l := &s.changes
	if l.history == 0 {
		l.history = ctx.NowMicros | 1 // never 0: 0 means "no history yet"
	}
	l.lastSeq++
	rec.Seq, rec.Op, rec.TimeMicros = l.lastSeq, ctx.Op, ctx.NowMicros
	if activityGroup(rec.Group) {
		l.activity.push(rec, l.activityCap)
	} else {
		l.resource.push(rec, l.resourceCap)
	}
}

func (r *changeRing) push(rec wire.ChangeRecord, capacity int) {
	r.records = append(r.records, rec)
	r.bodyBytes += len(rec.Body)
	r.trim(capacity)
}

// trim evicts the oldest records past capacity or the body byte cap; the
// newest record always stays, however large.
func (r *changeRing) trim(capacity int) {
	drop := 0
	for len(r.records)-drop > capacity || (r.bodyBytes > changeRingBodyBytesMax && len(r.records)-drop > 1) {
		r.bodyBytes -= len(r.records[drop].Body)
		r.evictedSeq = r.records[drop].Seq
		drop++
	}
	if drop > 0 {
		r.records = append(r.records[:0:0], r.records[drop:]...)
	}
}

// walk reads or writes the log in the snapshot (after the entities).
func (l *changeLog) walk(c *codec) {
	c.u64(&l.history)
	c.u64(&l.lastSeq)
	l.resource.walk(c)
	l.activity.walk(c)
}

func (r *changeRing) walk(c *codec) {
	c.u64(&r.evictedSeq)
	n := len(r.records)
	c.length(&n, 8, ChangeLogCapacityMax)
	if c.decoding() && n > 0 {
		r.records = make([]wire.ChangeRecord, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		walkChange(c, &r.records[i])
	}
	if !c.ok() {
		r.records = nil
		return
	}
	r.bodyBytes = 0
	for _, rec := range r.records {
		r.bodyBytes += len(rec.Body)
	}
}

func walkChange(c *codec, x *wire.ChangeRecord) {
	c.u64(&x.Seq)
	c.u64(&x.Op)
	c.u64(&x.TimeMicros)
	g := uint8(x.Group)
	c.u8(&g)
	x.Group = wire.ChangeGroup(g)
	c.boolean(&x.HasUser)
	c.u32(&x.UserID)
	c.text(&x.Kind, changeKindBytesMax)
	c.blob(&x.Body, changeRingBodyBytesMax)
}

// checkChanges verifies a restored log: seqs ascend within each ring and
// stay at or below lastSeq, groups are known, each record in its ring.
func (l *changeLog) check() bool {
	for _, r := range []*changeRing{&l.resource, &l.activity} {
		prev := r.evictedSeq
		for _, rec := range r.records {
			if rec.Seq <= prev || rec.Seq > l.lastSeq || int(rec.Group) >= len(wire.ChangeGroupNames) ||
				activityGroup(rec.Group) != (r == &l.activity) {
				return false
			}
			prev = rec.Seq
		}
	}
	return l.history != 0 || l.lastSeq == 0
}
