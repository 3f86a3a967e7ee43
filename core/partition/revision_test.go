package partition

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

func newRevisionHarness(t *testing.T, rev uint64) *harness {
	h := &harness{t: t, cfg: testConfig(), disk: newFakeDisk(), now: 1_000_000}
	h.log = New(h.cfg, h.disk)
	h.log.Create(rev)
	h.step()
	return h
}

// covers STOR-26
// A partition created as incarnation 7 holds created.revision naming it,
// and recovers as itself.
func TestCreatedRevisionWritten(t *testing.T) {
	h := newRevisionHarness(t, 7)
	h.fill(3, 2, true)
	if got := string(h.disk.get(testDir + "/" + revisionFile)); got != "7\n" {
		t.Fatalf("created.revision holds %q", got)
	}
	if r := h.reopenAt(7); r.Code != wire.OK || r.CurrentOffset != 5 || r.StaleRevision != 0 || r.Adopted {
		t.Fatalf("recovered %+v", r)
	}
}

// covers STOR-27
// A directory whose created.revision names an older incarnation holds a
// deleted partition's data: recovery deletes its segments and offsets, the
// partition starts empty, and the marker then names the new incarnation.
func TestOlderRevisionDeletedOnRecovery(t *testing.T) {
	h := newRevisionHarness(t, 7)
	h.fill(3, 2, true)
	h.log.StoreOffset(Consumer, 1, 3, true)
	h.step()
	r := h.reopenAt(9)
	if r.Code != wire.OK || r.StaleRevision != 7 || r.CurrentOffset != 0 || !h.log.Empty() {
		t.Fatalf("recovered %+v", r)
	}
	if _, ok := h.log.Offset(Consumer, 1); ok || h.disk.files[testDir+"/offsets/consumers/1"] != nil {
		t.Fatal("the older incarnation's offset survived")
	}
	if got := string(h.disk.get(testDir + "/" + revisionFile)); got != "9\n" {
		t.Fatalf("created.revision holds %q", got)
	}
	if r := h.reopenAt(9); r.StaleRevision != 0 || r.CurrentOffset != 0 {
		t.Fatalf("second recovery %+v", r)
	}
}

// A marker naming a newer incarnation than the metadata's is refused: the
// directory is left as it is.
func TestNewerRevisionRefused(t *testing.T) {
	h := newRevisionHarness(t, 9)
	h.fill(1, 1, true)
	if r := h.reopenAt(7); r.Code == wire.OK || r.NewerRevision != 9 {
		t.Fatalf("recovered %+v", r)
	}
}

// covers STOR-29
// A nonempty directory without created.revision is adopted (the node logs
// the warning) and gets the marker; an empty one is a new partition.
func TestDirectoryWithoutRevisionAdopted(t *testing.T) {
	h := newRevisionHarness(t, 0)
	h.fill(2, 2, true)
	if r := h.reopenAt(5); r.Code != wire.OK || !r.Adopted || r.CurrentOffset != 3 {
		t.Fatalf("recovered %+v", r)
	}
	if got := string(h.disk.get(testDir + "/" + revisionFile)); got != "5\n" {
		t.Fatalf("created.revision holds %q", got)
	}
	empty := &harness{t: t, cfg: testConfig(), disk: newFakeDisk(), now: 1000}
	if r := empty.reopenAt(5); r.Adopted {
		t.Fatalf("an empty directory adopted: %+v", r)
	}
}

// A purge is a new incarnation: once the purged files are gone, the marker
// names it, so a restart does not take the purged data back.
func TestPurgeRewritesRevision(t *testing.T) {
	h := newRevisionHarness(t, 7)
	h.fill(2, 2, true)
	h.log.Purge(12)
	h.step()
	if got := string(h.disk.get(testDir + "/" + revisionFile)); got != "12\n" {
		t.Fatalf("created.revision holds %q", got)
	}
	if r := h.reopenAt(12); r.Code != wire.OK || r.CurrentOffset != 0 || r.StaleRevision != 0 {
		t.Fatalf("recovered %+v", r)
	}
}

// No message of a new incarnation is written before its marker is durable:
// a crash between the two would leave the messages beside no marker (or
// an older one), and a later boot would adopt an older incarnation's
// files as this one's, or delete this one's as stale.
//
// covers STOR-26, STOR-29
func TestAppendsWaitForTheMarker(t *testing.T) {
	h := &harness{t: t, cfg: testConfig(), disk: newFakeDisk(), now: 1_000_000}
	h.log = New(h.cfg, h.disk)
	h.log.Create(7)
	h.log.Append(h.record(2), h.now, false)
	h.log.Flush()
	markerSync := -1
	for i, r := range h.disk.queue {
		if r.Op == storage.OpWrite && r.File != testDir+"/"+revisionFile {
			t.Fatalf("request %d writes %s before the marker is durable", i, r.File)
		}
		if r.Op == storage.OpSync && r.File == testDir+"/"+revisionFile {
			markerSync = i
		}
	}
	if markerSync < 0 {
		t.Fatal("no sync of the marker was asked for")
	}
	h.step() // the marker is synced; the next flush writes the append
	if got := h.disk.get(testDir + "/" + revisionFile); string(got) != "7\n" {
		t.Fatalf("marker %q", got)
	}
	if c := h.committed(); len(c) != 1 {
		t.Fatalf("committed %v after the marker", c)
	}
	written := false
	for _, r := range h.disk.log {
		written = written || (r.Op == storage.OpWrite && r.File != testDir+"/"+revisionFile)
		if r.Op == storage.OpSync && r.File == testDir+"/"+revisionFile && written {
			t.Fatal("the append was written before the marker's sync ran")
		}
	}
}

// A create finds the files of an earlier incarnation whose delete a crash
// lost: it starts from an empty directory, and a later boot finds none of
// the old messages (swarm seed 60883).
//
// covers STOR-26, STOR-27
func TestCreateClearsALeftDirectory(t *testing.T) {
	old := newRevisionHarness(t, 7)
	old.fill(3, 2, true)
	h := &harness{t: t, cfg: testConfig(), disk: old.disk, now: 1_000_000}
	h.log = New(h.cfg, h.disk) // incarnation 9 over the files 7 left
	h.log.Create(9)
	h.step()
	if r := h.reopenAt(9); r.Code != wire.OK || r.CurrentOffset != 0 || r.Adopted || !h.log.Empty() {
		t.Fatalf("recovered %+v: the old incarnation's messages survived", r)
	}
	if got := string(h.disk.get(testDir + "/" + revisionFile)); got != "9\n" {
		t.Fatalf("created.revision holds %q", got)
	}
}
