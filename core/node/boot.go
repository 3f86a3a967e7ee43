package node

import (
	"cmp"
	"fmt"
	"slices"

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

type bootPhase uint8

const (
	bootReading bootPhase = iota + 1
	bootRootCommit
	bootCreatingCluster
	bootPartitions
	bootDone
)

// booter walks recovery: the metadata group's host reads the superblock,
// the image of its checkpoint and the journal after it (group.Booter);
// on fresh storage the booter creates the superblock and journal and
// commits root as op 1; otherwise it restores the image, replays the
// journal (standalone) or opens the replica (replica sets); then it
// recovers every partition log.
type booter struct {
	n          *Node
	phase      bootPhase
	r          *group.Read // what the host read
	recovering int
}

// Boot starts recovery; the node serves once Ready reports Booted.
func (n *Node) Boot() {
	n.meta = metadata.New()
	n.sizeChangeLog()
	n.boot = &booter{n: n, phase: bootReading}
	n.mg.Boot(n.boot, n.bootDisk())
}

// bootDisk carries the metadata group's boot requests.
func (n *Node) bootDisk() diskFor { return diskFor{n, owner{kind: ownerHostBoot}} }

// Fresh: no superblock slot and no journal; the storage is new.
func (b *booter) Fresh() { b.createFresh() }

// Read continues once the host read the superblock and the journal.
func (b *booter) Read(r *group.Read) {
	b.r = r
	b.replay()
}

// FirstDurable: the first superblock of a new replica of a set is durable.
func (b *booter) FirstDurable() { b.createCluster() }

// Image restores the checkpoint image (ROOT-11: a checkpoint above op 0
// holds initialized metadata, root included).
func (b *booter) Image(sb vsr.Superblock, img []byte) bool {
	n := b.n
	if !group.ImageMatches(sb, img) {
		n.fatal("refusing %s: it does not match the superblock's checksum of checkpoint op %d", snapshotPath(sb.CheckpointOp), sb.CheckpointOp)
		return false
	}
	decoded, err := decodeImage(img)
	if err != nil || decoded.op != sb.CheckpointOp {
		n.fatal("refusing %s: %v (op %d, superblock checkpoint op %d)", snapshotPath(sb.CheckpointOp), err, decoded.op, sb.CheckpointOp)
		return false
	}
	n.restore(decoded)
	n.applied, n.appliedChecksum = decoded.op, sb.CheckpointChecksum
	n.openAllPartitions()
	return true
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
		n.mg.CreateFirst(b, n.bootDisk(), sb)
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
		if prepares[i].Op > b.r.Superblock.CheckpointOp {
			n.applyPrepare(&prepares[i], true)
		}
	}
	last := b.r.Superblock.CheckpointOp
	if len(prepares) > 0 {
		last = max(last, prepares[len(prepares)-1].Op)
	}
	n.mg.OpenStandalone(b.r.Superblock, b.r.Segments, tail, last)
	n.logf("replayed metadata ops %d..%d after checkpoint %d", b.r.Superblock.CheckpointOp+1, last, b.r.Superblock.CheckpointOp)
	n.logClientsLimit()
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
	if b.r.Superblock.CheckpointOp != 0 || len(b.r.Data) > 1 {
		return false
	}
	if len(b.r.Data) == 0 {
		return true
	}
	ps, _ := vsr.Scan(b.r.Data[0])
	return b.r.Segments[0].FirstOp == 1 && len(ps) == 0 && len(b.r.Data[0]) < rootPrepareBytesMax
}

// reinitialize drops the unfinished journal and initializes again.
func (b *booter) reinitialize() {
	n := b.n
	for _, s := range b.r.Segments {
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
	for i, data := range b.r.Data {
		ps, valid := vsr.Scan(data)
		slices.SortStableFunc(ps, func(x, y vsr.Prepare) int { return cmp.Compare(x.Op, y.Op) })
		all = append(all, ps...)
		tail = uint64(valid)
		if valid < len(data) || i+1 < len(b.r.Data) && b.breaksRun(i, ps) {
			b.cutAfter(i, valid)
			break
		}
	}
	slices.SortStableFunc(all, func(x, y vsr.Prepare) int { return cmp.Compare(x.Op, y.Op) })
	if reason := checkOps(all, b.r.Superblock.CheckpointOp); reason != "" {
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
	next := b.r.Segments[i+1].FirstOp
	end := b.r.Segments[i].FirstOp - 1
	if len(ps) > 0 {
		end = max(end, ps[len(ps)-1].Op)
	}
	return next > b.r.Superblock.CheckpointOp+1 && end+1 < next
}

// cutAfter truncates segment i at valid and deletes the segments after it.
func (b *booter) cutAfter(i, valid int) {
	n := b.n
	path := journalDir + "/" + vsr.SegmentName(b.r.Segments[i].FirstOp)
	if valid < len(b.r.Data[i]) {
		n.logf("%s: cutting %d bytes of torn or corrupt tail at offset %d", path, len(b.r.Data[i])-valid, valid)
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpTruncate, File: path, Offset: uint64(valid)})
	}
	for _, s := range b.r.Segments[i+1:] {
		later := journalDir + "/" + vsr.SegmentName(s.FirstOp)
		n.logf("%s: deleted, it follows a torn segment (never acknowledged)", later)
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDelete, File: later})
	}
	b.r.Segments = b.r.Segments[:i+1]
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
	if !n.checkStreamKeys() {
		return
	}
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
