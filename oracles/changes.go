package oracles

import (
	"bytes"
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// The metadata change log oracle (MCL-4, MCL-9, MCL-21..24): a follower
// that reads every group from earliest, page after page with the cursor
// each page returned, on whatever node it is connected to, across
// restarts and view changes, sees every committed change once and in
// order. Its pages are checked against the log of a converged replica at
// the end: the records it saw are the ones committed at those seqs (a
// record of an op that never committed would differ there), with no seq
// twice, none out of order, and none skipped except after an expired
// answer, which it must have deserved.

// Marks of the change log oracle.
const (
	// MarkChangesChecked: a follower's pages with records were checked.
	MarkChangesChecked = "oracle.changes.checked"
)

// ChangeFollow is what a follower saw.
type ChangeFollow struct {
	Pages []ChangePage
	// Expired are the cursor seqs a node answered expired for; the
	// follower then started again from a current walk's anchor.
	Expired []ChangeGap
	// CaughtUp is the seq of the last cursor the follower reached after
	// heal, with nothing more to read on a converged node (0: it did not).
	CaughtUp uint64
}

// ChangePage is one ok history page.
type ChangePage struct {
	// After is the seq of the cursor it was asked after; Earliest when it
	// asked from earliest.
	After    uint64
	Earliest bool
	Records  []wire.ChangeRecord
	Replica  int // which replica answered, for the report
	// Next is the seq of the cursor the page returned.
	Next uint64
}

// ChangeGap is an expired cursor and the anchor the follower went on from.
type ChangeGap struct {
	Cursor, Anchor uint64
}

// FinalChanges is a converged replica's log: its records (oldest first,
// both rings merged) and the highest seq either ring evicted.
type FinalChanges struct {
	Records []wire.ChangeRecord
	Floor   uint64
}

// CheckChanges checks a follower's pages against the final log.
func CheckChanges(f *ChangeFollow, final FinalChanges) error {
	bySeq := make(map[uint64]*wire.ChangeRecord, len(final.Records))
	for i := range final.Records {
		bySeq[final.Records[i].Seq] = &final.Records[i]
	}
	for _, g := range f.Expired {
		if final.Floor <= g.Cursor {
			return fmt.Errorf("changes: cursor at seq %d answered expired, but no record after it was ever evicted (floor %d)", g.Cursor, final.Floor)
		}
	}
	var last uint64 // the seq of the follower's position
	gaps := f.Expired
	for i, p := range f.Pages {
		if p.Earliest && i != 0 {
			return fmt.Errorf("changes: page %d started from earliest again", i)
		}
		// An expired cursor moves the follower to its anchor, perhaps more
		// than once before its next ok page (the anchor expired too).
		for !p.Earliest && p.After != last && len(gaps) > 0 && gaps[0].Cursor == last && gaps[0].Anchor >= last {
			last, gaps = gaps[0].Anchor, gaps[1:]
		}
		if !p.Earliest && p.After != last {
			return fmt.Errorf("changes: page %d (replica %d) asked after seq %d, the follower was at %d", i, p.Replica, p.After, last)
		}
		for j, r := range p.Records {
			if err := checkSeen(p, j, r, last, bySeq, final.Floor); err != nil {
				return fmt.Errorf("changes: page %d (replica %d, after seq %d): %w", i, p.Replica, p.After, err)
			}
			last = r.Seq
		}
		if p.Next != last && !(p.Earliest && len(p.Records) == 0) {
			return fmt.Errorf("changes: page %d (replica %d) ends at seq %d but returned a cursor at %d", i, p.Replica, last, p.Next)
		}
		last = p.Next
	}
	return checkCaughtUp(f, final, last)
}

// checkSeen: record j of page p follows the one before without a gap and
// is the record the final log holds at its seq.
func checkSeen(p ChangePage, j int, r wire.ChangeRecord, last uint64, bySeq map[uint64]*wire.ChangeRecord, floor uint64) error {
	if r.Seq <= last {
		return fmt.Errorf("seq %d seen again or out of order (at %d)", r.Seq, last)
	}
	if r.Seq != last+1 && !(p.Earliest && j == 0) {
		return fmt.Errorf("seq %d follows seq %d: records skipped", r.Seq, last)
	}
	want, ok := bySeq[r.Seq]
	if !ok {
		if r.Seq > floor {
			return fmt.Errorf("seq %d (%s at op %d) is not in the final log", r.Seq, r.Kind, r.Op)
		}
		return nil // evicted since
	}
	if want.Op != r.Op || want.Kind != r.Kind || want.Group != r.Group || want.HasUser != r.HasUser ||
		want.UserID != r.UserID || want.TimeMicros != r.TimeMicros || !bytes.Equal(want.Body, r.Body) {
		return fmt.Errorf("seq %d was %s at op %d %s, the final log holds %s at op %d %s",
			r.Seq, r.Kind, r.Op, r.Body, want.Kind, want.Op, want.Body)
	}
	return nil
}

// checkCaughtUp: a follower that caught up after heal saw every record the
// final log holds up to its position.
func checkCaughtUp(f *ChangeFollow, final FinalChanges, last uint64) error {
	if f.CaughtUp == 0 {
		return nil
	}
	if f.CaughtUp != last {
		return fmt.Errorf("changes: caught up at seq %d, but the last page ended at %d", f.CaughtUp, last)
	}
	if n := len(final.Records); n > 0 && final.Records[n-1].Seq < last {
		return fmt.Errorf("changes: the follower reached seq %d, the final log ends at %d", last, final.Records[n-1].Seq)
	}
	return nil
}
