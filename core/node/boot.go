package node

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
)

// Metadata files, fixed names under the data root.
const (
	metadataDir = "metadata"
	journalDir  = "metadata/journal"
)

// snapshotPath names the image of the checkpoint at op. Each checkpoint
// writes a new file, so the image the durable superblock names is never
// overwritten before a newer superblock is durable.
func snapshotPath(op uint64) string { return fmt.Sprintf("metadata/snapshot-%020d.bin", op) }

// superblockPaths are the two slots, written in turn.
var superblockPaths = [2]string{"metadata/superblock.a", "metadata/superblock.b"}

// journalReadBytesMax bounds the journal bytes read at boot: checkpoints keep
// the journal after the last one short, so more means something is wrong.
const journalReadBytesMax = 1 << 30

type bootPhase uint8

const (
	bootListing bootPhase = iota + 1
	bootReadingSuperblocks
	bootReadingSnapshot
	bootListingJournal
	bootReadingJournal
	bootRootCommit
	bootCreatingCluster
	bootPartitions
	bootDone
)

// booter walks recovery: list metadata; on fresh storage create the
// superblock and journal and commit root as op 1; otherwise read the
// superblock, restore its checkpoint image, read and replay the journal
// after it; then recover every partition log.
type booter struct {
	n          *Node
	phase      bootPhase
	reads      map[storage.ReqID]int // outstanding reads, by index into data
	files      []string              // the files being read, by the same index
	data       [][]byte
	sb         vsr.Superblock
	segments   []vsr.Segment
	recovering int
	freshSync  storage.ReqID // the first superblock of a new replica is durable
	// noSuperblock: a replica found no valid slot; secondSlotWritten: the
	// slot a second superblock goes to holds bytes.
	noSuperblock, secondSlotWritten bool
}

// Boot starts recovery; the node serves once Ready reports Booted.
func (n *Node) Boot() {
	n.meta = metadata.New()
	n.boot = &booter{n: n, phase: bootListing}
	n.submit(owner{kind: ownerBoot}, storage.Request{Op: storage.OpList, File: metadataDir})
}

func (b *booter) complete(c storage.Completion) {
	n := b.n
	if c.Result == storage.ResultIOError {
		n.fatal("boot: disk request %d failed: %s", c.ID, c.Err)
		return
	}
	switch b.phase {
	case bootListing:
		b.listed(c)
	case bootListingJournal:
		b.listedJournal(c)
	case bootReadingSuperblocks, bootReadingSnapshot, bootReadingJournal:
		if b.gather(c) {
			b.readDone()
		}
	case bootCreatingCluster:
		if c.ID == b.freshSync {
			b.createCluster()
		}
	default:
		n.fatal("unexpected boot completion in phase %d", b.phase)
	}
}

// read asks for whole files; gather collects them by index.
func (b *booter) read(files []string, sizes []uint64) {
	b.reads = map[storage.ReqID]int{}
	b.files = files
	b.data = make([][]byte, len(files))
	for i, f := range files {
		id := b.n.submit(owner{kind: ownerBoot}, storage.Request{Op: storage.OpRead, File: f, Len: sizes[i]})
		b.reads[id] = i
	}
	if len(files) == 0 {
		b.readDone()
	}
}

func (b *booter) gather(c storage.Completion) bool {
	i, ok := b.reads[c.ID]
	if !ok {
		return false
	}
	delete(b.reads, c.ID)
	if i != syncNotRead {
		b.data[i] = c.Data
	}
	return len(b.reads) == 0
}

func (b *booter) readDone() {
	switch b.phase {
	case bootReadingSuperblocks:
		b.superblocksRead()
	case bootReadingSnapshot:
		b.snapshotRead()
	case bootReadingJournal:
		b.replay()
	}
}

func (b *booter) listed(c storage.Completion) {
	var files []string
	var sizes []uint64
	journal := false
	for _, e := range c.Entries {
		switch {
		case e.Name == "superblock.a" || e.Name == "superblock.b":
			files, sizes = append(files, metadataDir+"/"+e.Name), append(sizes, vsr.SuperblockSize)
		case e.Name == "journal" && e.IsDir:
			journal = true
		}
	}
	if len(files) == 0 && !journal {
		b.createFresh()
		return
	}
	b.createMissingSlots(c.Entries)
	b.phase = bootReadingSuperblocks
	b.read(files, sizes)
	// A killed process leaves its unsynced slot writes in the page cache,
	// where they are read: synced now, the view a restart acts on cannot
	// go back at a later power loss. The reads wait for the syncs.
	for _, f := range files {
		b.reads[b.n.submit(owner{kind: ownerBoot}, storage.Request{Op: storage.OpSync, File: f})] = syncNotRead
	}
}

// syncNotRead marks a sync among a boot phase's reads: it carries no data.
const syncNotRead = -1

// createMissingSlots creates a superblock slot a crash left without its
// name (a fresh start creates both, and their creation may not have been
// durable): the next superblock write may go to it. Creating an existing
// file is a no-op, and a file's requests run in order, so the create comes
// first.
func (b *booter) createMissingSlots(entries []storage.Entry) {
	for _, path := range superblockPaths {
		name := strings.TrimPrefix(path, metadataDir+"/")
		if !slices.ContainsFunc(entries, func(e storage.Entry) bool { return e.Name == name }) {
			b.n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpCreate, File: path})
		}
	}
}

// slotWritten reports that the superblock slot at path holds bytes.
func (b *booter) slotWritten(path string) bool {
	for i, f := range b.files {
		if f == path {
			return len(b.data[i]) > 0
		}
	}
	return false
}

// superblocksRead picks the newest valid slot. No valid slot with a journal
// present is a journal that never checkpointed: replay it from op 1. A slot
// of an unknown version is refused, not skipped (STOR-18).
func (b *booter) superblocksRead() {
	sb, ok, err := group.NewestSlot(b.files, b.data)
	if err != nil {
		b.n.fatal("%v", err)
		return
	}
	if !ok && b.n.cfg.clustered() {
		b.noSuperblock, b.secondSlotWritten = true, b.slotWritten(superblockPaths[1])
	}
	if !ok {
		sb = vsr.Superblock{}
	}
	b.sb = sb
	if sb.CheckpointOp == 0 {
		b.listJournal()
		return
	}
	b.phase = bootReadingSnapshot
	b.read([]string{snapshotPath(sb.CheckpointOp)}, []uint64{sb.SnapshotSize})
}

// snapshotRead restores the checkpoint image (ROOT-11: a checkpoint above op
// 0 holds initialized metadata, root included).
func (b *booter) snapshotRead() {
	n := b.n
	img := b.data[0]
	if !group.ImageMatches(b.sb, img) {
		n.fatal("refusing %s: it does not match the superblock's checksum of checkpoint op %d", snapshotPath(b.sb.CheckpointOp), b.sb.CheckpointOp)
		return
	}
	op, meta, clients, err := decodeImage(img)
	if err != nil || op != b.sb.CheckpointOp {
		n.fatal("refusing %s: %v (op %d, superblock checkpoint op %d)", snapshotPath(b.sb.CheckpointOp), err, op, b.sb.CheckpointOp)
		return
	}
	n.meta, n.clients = meta, clients
	n.applied, n.appliedChecksum = op, b.sb.CheckpointChecksum
	n.mg.Serve(b.sb, img)
	n.openAllPartitions()
	b.listJournal()
}

func (b *booter) listJournal() {
	b.phase = bootListingJournal
	b.n.submit(owner{kind: ownerBoot}, storage.Request{Op: storage.OpList, File: journalDir})
}

func (b *booter) listedJournal(c storage.Completion) {
	var files []string
	var sizes []uint64
	var total uint64
	for _, e := range c.Entries { // sorted by name, so by first op
		first, ok := segmentFirstOp(e.Name)
		if !ok {
			continue
		}
		b.segments = append(b.segments, vsr.Segment{FirstOp: first})
		files, sizes = append(files, journalDir+"/"+e.Name), append(sizes, e.Size)
		total += e.Size
	}
	if total > journalReadBytesMax {
		b.n.fatal("%s holds %d bytes after the checkpoint, above the %d this build replays", journalDir, total, journalReadBytesMax)
		return
	}
	b.phase = bootReadingJournal
	b.read(files, sizes)
}

// segmentFirstOp parses "<first op:020>.wal".
func segmentFirstOp(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, ".wal")
	if !ok || len(digits) != 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	return v, err == nil && v > 0
}

// createFresh initializes empty metadata: both superblock slots, the first
// journal segment, and root as op 1 (ROOT-5).
func (b *booter) createFresh() {
	n := b.n
	if n.cfg.Root == nil && !n.cfg.clustered() {
		n.fatal("fresh storage needs IGGY_ROOT_USERNAME and IGGY_ROOT_PASSWORD, or --with-default-root-credentials")
		return
	}
	misc := owner{kind: ownerMisc}
	for _, p := range superblockPaths {
		n.submit(misc, storage.Request{Op: storage.OpCreate, File: p})
	}
	sb := vsr.Superblock{Sequence: 1}
	if n.cfg.clustered() {
		// A replica acts only once its superblock is durable: a power loss
		// before that brings it back fresh, and a fresh replica that had
		// already proposed would propose op 1 again in the same view (sim
		// cluster seeds 728, 755, 828). After it, a restart is no longer
		// fresh and its primary moves to the next view.
		b.phase = bootCreatingCluster
		b.freshSync = n.mg.WriteSlot(sb, diskFor{n, owner{kind: ownerBoot}})
		return
	}
	n.mg.WriteSlot(sb, diskFor{n, misc})
	n.mg.OpenStandalone(sb, nil, 0, 0)
	b.phase = bootRootCommit
	n.propose(vsr.Prepare{
		Kind: vsr.KindCommand, Timestamp: n.now.NowMicros,
		Body: metadata.Encode(rootCommand(n.cfg.Root)),
	})
}

// rootCommitted runs when op 1 commits on fresh storage.
func (b *booter) rootCommitted() {
	b.phase = bootDone
	b.n.ready.Booted = true
	b.n.logf("initialized fresh storage; root user created as op 1")
}

// replay checks the journal segments, cuts a torn tail of the last one,
// applies every op after the checkpoint, then recovers partitions.
func (b *booter) replay() {
	n := b.n
	if n.cfg.clustered() {
		b.openCluster()
		return
	}
	if b.neverInitialized() {
		b.reinitialize()
		return
	}
	prepares, tail, code := b.scanSegments()
	if code != "" {
		n.fatal("refusing %s: %s", journalDir, code)
		return
	}
	for i := range prepares {
		if prepares[i].Op > b.sb.CheckpointOp {
			n.applyPrepare(&prepares[i], true)
		}
	}
	last := b.sb.CheckpointOp
	if len(prepares) > 0 {
		last = max(last, prepares[len(prepares)-1].Op)
	}
	n.mg.OpenStandalone(b.sb, b.segments, tail, last)
	n.logf("replayed metadata ops %d..%d after checkpoint %d", b.sb.CheckpointOp+1, last, b.sb.CheckpointOp)
	b.recoverPartitions()
}

// rootPrepareBytesMax bounds the size of op 1, the root creation: a header,
// a username of at most 50 bytes and an argon2id hash of well under 512.
const rootPrepareBytesMax = vsr.PrepareHeaderSize + 1024

// neverInitialized reports a first boot that crashed before op 1 (root) was
// durable: no checkpoint, no complete prepare, and no more bytes than op 1
// alone. Such storage can have lost nothing but the root creation itself,
// which is redone (STOR-1); anything larger is a corrupt journal, refused.
func (b *booter) neverInitialized() bool {
	if b.sb.CheckpointOp != 0 || len(b.data) > 1 {
		return false
	}
	if len(b.data) == 0 {
		return true
	}
	ps, _ := vsr.Scan(b.data[0])
	return b.segments[0].FirstOp == 1 && len(ps) == 0 && len(b.data[0]) < rootPrepareBytesMax
}

// reinitialize drops the unfinished journal and initializes again.
func (b *booter) reinitialize() {
	n := b.n
	for _, s := range b.segments {
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDelete, File: journalDir + "/" + vsr.SegmentName(s.FirstOp)})
	}
	n.logf("%s holds no complete entry: the first initialization did not finish; initializing again", journalDir)
	b.createFresh()
}

// scanSegments parses the segments in order. A torn or corrupt tail ends
// the journal there: the segment is cut and every later one deleted, since
// a flush is acknowledged only once every earlier flush synced, so nothing
// after the tear was ever acknowledged. The ops come back sorted by op
// number (ROOT-13: an entry counts by its op, wherever it sits), with the
// valid size of the last segment kept, or a refusal reason.
func (b *booter) scanSegments() ([]vsr.Prepare, uint64, string) {
	var all []vsr.Prepare
	var tail uint64
	for i, data := range b.data {
		ps, valid := vsr.Scan(data)
		slices.SortStableFunc(ps, func(x, y vsr.Prepare) int { return cmp.Compare(x.Op, y.Op) })
		all = append(all, ps...)
		tail = uint64(valid)
		if valid < len(data) || i+1 < len(b.data) && b.breaksRun(i, ps) {
			b.cutAfter(i, valid)
			break
		}
	}
	slices.SortStableFunc(all, func(x, y vsr.Prepare) int { return cmp.Compare(x.Op, y.Op) })
	if reason := checkOps(all, b.sb.CheckpointOp); reason != "" {
		return nil, 0, reason
	}
	return all, tail, ""
}

// breaksRun reports that the segment after i starts past ops segment i
// lacks: a flush to i was lost (a power loss before its sync), so the later
// segment's ops, flushed after it, were never acknowledged either (sim seeds
// swarm 21126, liveness 23070: an empty segment before a later one).
// Segments of ops the checkpoint covers may have gaps: their deletes
// complete in any order.
func (b *booter) breaksRun(i int, ps []vsr.Prepare) bool {
	next := b.segments[i+1].FirstOp
	end := b.segments[i].FirstOp - 1
	if len(ps) > 0 {
		end = max(end, ps[len(ps)-1].Op)
	}
	return next > b.sb.CheckpointOp+1 && end+1 < next
}

// cutAfter truncates segment i at valid and deletes the segments after it.
func (b *booter) cutAfter(i, valid int) {
	n := b.n
	path := journalDir + "/" + vsr.SegmentName(b.segments[i].FirstOp)
	if valid < len(b.data[i]) {
		n.logf("%s: cutting %d bytes of torn or corrupt tail at offset %d", path, len(b.data[i])-valid, valid)
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpTruncate, File: path, Offset: uint64(valid)})
	}
	for _, s := range b.segments[i+1:] {
		later := journalDir + "/" + vsr.SegmentName(s.FirstOp)
		n.logf("%s: deleted, it follows a torn segment (never acknowledged)", later)
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDelete, File: later})
	}
	b.segments = b.segments[:i+1]
}

// checkOps refuses ops that are not consecutive, that leave a gap after the
// checkpoint, or, without a checkpoint, whose op 1 is not the creation of
// root (ROOT-12, ROOT-13, ROOT-14, ROOT-15).
func checkOps(ps []vsr.Prepare, checkpoint uint64) string {
	// Ops at or below the checkpoint are covered by its image: segments of
	// them may survive in any order, as their deletes complete out of order.
	after := ps[:0:0]
	for _, p := range ps {
		if p.Op > checkpoint {
			after = append(after, p)
		}
	}
	if len(after) == 0 {
		if checkpoint == 0 {
			return "no complete entry, so no root creation at op 1"
		}
		return ""
	}
	for i := 1; i < len(after); i++ {
		if after[i].Op != after[i-1].Op+1 {
			return "op " + itoa(after[i].Op) + " follows op " + itoa(after[i-1].Op)
		}
	}
	if after[0].Op != checkpoint+1 {
		return "ops " + itoa(checkpoint+1) + ".." + itoa(after[0].Op-1) + " are missing after checkpoint " + itoa(checkpoint)
	}
	if checkpoint > 0 {
		return ""
	}
	p := after[0]
	if p.Kind != vsr.KindCommand || !isRootCommand(p.Body) {
		return "op 1 (kind " + itoa(uint64(p.Kind)) + ") is not the creation of the root user"
	}
	return ""
}

func (b *booter) recoverPartitions() {
	n := b.n
	keys := n.sortedPartitionKeys()
	remotes := sortedPartKeys(n.remotes)
	b.phase = bootPartitions
	b.recovering = len(keys) + len(remotes)
	for _, k := range keys {
		n.partitions[k].Recover(n.partitionRevision(k))
	}
	for _, k := range remotes {
		n.openRemote(k, n.partitionRevision(k), false)
	}
	b.maybeDone()
}

// partitionRecovered counts partitions that finished recovery.
func (b *booter) partitionRecovered() {
	if b.phase != bootPartitions {
		return // a partition opened after boot (replica sets, state transfer)
	}
	b.recovering--
	b.maybeDone()
}

func (b *booter) maybeDone() {
	if b.phase == bootPartitions && b.recovering == 0 {
		b.phase = bootDone
		b.n.ready.Booted = true
	}
}
