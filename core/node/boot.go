package node

import (
	"sort"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
)

// Metadata files, fixed names under the data root (protocol-data.md 10.1).
const (
	journalPath = "metadata/journal.wal"
	metadataDir = "metadata"
)

// journalReadBytesMax bounds the journal read at boot. Without checkpoints the
// whole journal is replayed; past this size the node refuses to boot rather
// than read without bound (checkpoints lift it).
const journalReadBytesMax = 1 << 30

type bootPhase uint8

const (
	bootListing bootPhase = iota + 1
	bootReading
	bootCreating
	bootRootCommit
	bootPartitions
	bootDone
)

// booter walks recovery: list metadata, read and replay the journal (or
// create it and commit root as op 1 on fresh storage), then recover every
// partition log.
type booter struct {
	n          *Node
	phase      bootPhase
	recovering int
}

// Boot starts recovery; the node serves once Ready reports Booted.
func (n *Node) Boot() {
	n.meta = metadata.New()
	n.boot = &booter{n: n, phase: bootListing}
	n.submit(owner{kind: ownerBoot}, storage.Request{Op: storage.OpList, File: metadataDir})
}

func (b *booter) complete(c storage.Completion) {
	n := b.n
	switch b.phase {
	case bootListing:
		b.listed(c)
	case bootReading:
		if c.Result != storage.ResultOK {
			n.fatal("cannot read %s: %s", journalPath, c.Err)
			return
		}
		b.replay(c.Data)
	case bootCreating:
		if c.Result != storage.ResultOK {
			n.fatal("cannot create %s: %s", journalPath, c.Err)
			return
		}
		b.createRoot()
	default:
		n.fatal("unexpected boot completion in phase %d", b.phase)
	}
}

func (b *booter) listed(c storage.Completion) {
	n := b.n
	var size uint64
	found := false
	for _, e := range c.Entries {
		if e.Name == "journal.wal" {
			size, found = e.Size, true
		}
	}
	if c.Result == storage.ResultNotFound || !found || size == 0 {
		b.phase = bootCreating
		n.submit(owner{kind: ownerBoot}, storage.Request{Op: storage.OpCreate, File: journalPath})
		return
	}
	if c.Result != storage.ResultOK {
		n.fatal("cannot list %s: %s", metadataDir, c.Err)
		return
	}
	if size > journalReadBytesMax {
		n.fatal("%s is %d bytes, above the %d this build replays", journalPath, size, journalReadBytesMax)
		return
	}
	b.phase = bootReading
	n.submit(owner{kind: ownerBoot}, storage.Request{Op: storage.OpRead, File: journalPath, Len: size})
}

// createRoot commits the root user as op 1 of a fresh journal (ROOT-5).
func (b *booter) createRoot() {
	n := b.n
	if n.cfg.Root == nil {
		n.fatal("fresh storage needs IGGY_ROOT_USERNAME and IGGY_ROOT_PASSWORD, or --with-default-root-credentials")
		return
	}
	n.journal = vsr.OpenJournal(diskFor{n, owner{kind: ownerJournal}}, journalPath, 0, 0)
	n.replica = vsr.NewReplica(n.journal, 0, 0)
	b.phase = bootRootCommit
	n.replica.Propose(vsr.Prepare{
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

// replay checks and applies the journal, cuts a torn tail, then recovers partitions.
func (b *booter) replay(data []byte) {
	n := b.n
	prepares, valid := vsr.Scan(data)
	if err := checkRootOp(prepares); err != "" {
		n.fatal("refusing %s: %s", journalPath, err)
		return
	}
	if valid < len(data) {
		n.logf("%s: cutting %d bytes of torn or corrupt tail at offset %d", journalPath, len(data)-valid, valid)
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpTruncate, File: journalPath, Offset: uint64(valid)})
	}
	for i := range prepares {
		n.applyPrepare(&prepares[i], true)
	}
	last := uint64(len(prepares))
	n.journal = vsr.OpenJournal(diskFor{n, owner{kind: ownerJournal}}, journalPath, uint64(valid), last)
	n.replica = vsr.NewReplica(n.journal, 0, last)
	n.logf("replayed %d metadata ops from %s", last, journalPath)
	b.recoverPartitions()
}

// checkRootOp refuses a journal whose ops are not 1, 2, 3... or whose op 1
// is not the creation of root (ROOT-13, ROOT-14, ROOT-15).
func checkRootOp(ps []vsr.Prepare) string {
	if len(ps) == 0 {
		return "no complete entry, so no root creation at op 1"
	}
	for i := range ps {
		if ps[i].Op != uint64(i+1) {
			return "entry " + itoa(uint64(i)) + " has op " + itoa(ps[i].Op) + ", want " + itoa(uint64(i+1))
		}
	}
	p := ps[0]
	if p.Kind != vsr.KindCommand {
		return "op 1 has kind " + itoa(uint64(p.Kind)) + ", not a root creation"
	}
	if !isRootCommand(p.Body) {
		return "op 1 is not the creation of the root user"
	}
	return ""
}

func (b *booter) recoverPartitions() {
	n := b.n
	keys := make([]partKey, 0, len(n.partitions))
	for k := range n.partitions {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	b.phase = bootPartitions
	b.recovering = len(keys)
	for _, k := range keys {
		n.partitions[k].Recover()
	}
	b.maybeDone()
}

// partitionRecovered counts partitions that finished recovery.
func (b *booter) partitionRecovered() {
	b.recovering--
	b.maybeDone()
}

func (b *booter) maybeDone() {
	if b.phase == bootPartitions && b.recovering == 0 {
		b.phase = bootDone
		b.n.ready.Booted = true
	}
}

func (k partKey) less(o partKey) bool {
	if k.stream != o.stream {
		return k.stream < o.stream
	}
	if k.topic != o.topic {
		return k.topic < o.topic
	}
	return k.partition < o.partition
}
