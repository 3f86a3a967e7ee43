package partition

import (
	"strconv"
	"strings"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// revisionFile names the incarnation that created a partition directory
// (STOR-26): the decimal revision and a newline. A directory found with
// an older one holds a deleted incarnation's data, which recovery deletes
// before the partition starts empty (STOR-27); one without it is adopted
// (STOR-29). Revision 0 (Create, Recover, Purge) turns the marker off.
const revisionFile = "created.revision"

func (l *Log) revisionPath() string { return l.cfg.Dir + "/" + revisionFile }

// writeRevision records the log's revision in the directory. Callers issue it
// only once every delete of an older incarnation's files completed: a crash
// must never leave the new marker beside old data.
func (l *Log) writeRevision() {
	if l.revision == 0 {
		return
	}
	data := []byte(strconv.FormatUint(l.revision, 10) + "\n")
	l.submit(storage.Request{Op: storage.OpCreate, File: l.revisionPath()}, reqMarker, 0)
	l.submit(storage.Request{Op: storage.OpTruncate, File: l.revisionPath()}, reqMarker, 0)
	l.submit(storage.Request{Op: storage.OpWrite, File: l.revisionPath(), Data: [][]byte{data}}, reqMarker, 0)
	l.submit(storage.Request{Op: storage.OpSync, File: l.revisionPath()}, reqMarker, markerSynced)
}

// markerSynced tags the marker's sync among its requests.
const markerSynced = 1

// dueMarker notes a marker that must be durable before any append is
// written: otherwise a crash could leave messages of this incarnation
// beside no marker (a later boot adopts the directory, STOR-29, and with a
// delete of it lost, an older incarnation's messages with it) or beside an
// older incarnation's marker (a later boot deletes them as stale).
func (l *Log) dueMarker() {
	if l.revision > 0 {
		l.markersDue++
	}
}

// onMarker settles a marker request (or Create's delete of what an earlier
// incarnation left); a failed one breaks the log, which cannot show its
// incarnation any more.
func (l *Log) onMarker(f inflight, c storage.Completion) {
	if c.Result != storage.ResultOK && c.Result != storage.ResultNotFound {
		l.fail(wire.CannotSaveMessagesToSegment, c)
		return
	}
	if f.ref == markerSynced {
		assert.That(l.markersDue > 0, "partition: a marker synced that was not due")
		l.markersDue--
	}
}

// parseRevision reads a marker; false when it is not one.
func parseRevision(b []byte) (uint64, bool) {
	s, ok := strings.CutSuffix(string(b), "\n")
	if !ok {
		return 0, false
	}
	rev, err := strconv.ParseUint(s, 10, 64)
	return rev, err == nil && rev > 0
}

// onRevision settles recovery on the marker read: the same incarnation is
// recovered; an older one's files are all deleted and the partition starts
// empty; a newer one is refused (the metadata went back, or the directory
// came from elsewhere).
func (r *recovery) onRevision(l *Log, c storage.Completion) {
	rev, ok := parseRevision(c.Data)
	switch {
	case !ok:
		r.adopt()
	case rev == l.revision:
	case rev < l.revision:
		r.result.StaleRevision, r.rewriteMarker = rev, true
		for _, s := range r.segs {
			s.dropped = true
		}
		r.cur = len(r.segs)
		r.stale = true
	default:
		r.result.NewerRevision = rev
		r.abort(l)
		return
	}
	r.scanNext(l)
}

// adopt: a directory without a valid marker; with messages it is adopted
// as this incarnation's, with a warning (STOR-29).
func (r *recovery) adopt() {
	r.rewriteMarker = true
	for _, s := range r.segs {
		r.result.Adopted = r.result.Adopted || s.logBytes > 0
	}
}
