// Package node is the unit the world steps: one replica's metadata group and
// partition logs behind one Step/Ready interface. Inputs are client frames,
// connection events, ticks and disk completions; outputs are replies, disk
// requests and log lines. It never reads a clock, a socket or a file itself,
// so the simulator and production run the same code.
package node

import (
	"fmt"

	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// Ready is what one or more steps produced, for the caller to carry out.
type Ready struct {
	Replies []bus.Reply
	Disk    []storage.Request
	// Peers are messages to other replicas (Msg.To names the replica).
	Peers []PeerMessage
	// Shards are hand-offs to other shards of this node (ShardMessage.To).
	Shards  []ShardMessage
	Compute []compute.Request // jobs whose results come back as compute.Result inputs
	Logs    []string
	// Booted turns true once, after recovery, when the node starts serving.
	Booted bool
	// Fatal is set when the node cannot go on (a refused journal, a failed disk).
	Fatal string
	// WriteFailures counts the partition writes that failed in this step
	// (the disk_write_failures_total metric).
	WriteFailures int
}

// Crypto is the cheap secret handling the node does itself: minting personal
// access tokens and hashing them (BLAKE3 in production). Passwords are hashed
// and checked by jobs (compute.KindHashPassword, KindVerifyPassword), off the
// loop, because argon2id is slow by design.
type Crypto interface {
	NewToken() string
	HashToken(token string) string
	// Random fills b with random bytes that may be seen: the nonce base.
	Random(b []byte)
	// NewKey fills b with secret key material: a generated stream key.
	// Nothing outside the node may keep it (no trace records it).
	NewKey(b []byte)
}

// Node is one replica. Not safe for concurrent use: one caller steps it.
type Node struct {
	cfg    Config
	crypto Crypto
	now    clock.Tick
	ready  Ready
	// applying is the context of the command being applied, for the
	// records the node adds to its op (sessions a user's deletion ends).
	applying metadata.Ctx

	nextReqID storage.ReqID
	owners    map[storage.ReqID]owner
	readers   map[wire.Command]reader

	*state
}

// owner says which part of the node a disk request belongs to.
type owner struct {
	kind ownerKind
	part partKey
	// gen is the incarnation of the partition's log object, or of its
	// group: a log or group reopened (state transfer, damage) or deleted
	// and created again under the same key must not get its predecessor's
	// completions. A group host's request of gen 0 is the metadata group's.
	gen uint64
}

type ownerKind uint8

const (
	ownerPartition ownerKind = iota + 1
	ownerMisc                // fire-and-forget housekeeping (deletes of removed partitions)
	// A group host's boot reads, journal requests, and image and superblock
	// writes.
	ownerHostBoot
	ownerHostJournal
	ownerHostWrite
	ownerDropped   // a host's delete of a partition the front dropped
	ownerDirDelete // the front's delete of a stream's or topic's directory
)

// New makes a node that has not booted yet; call Boot next. A host shard
// (cfg.Shard > 0) is not booted: the front opens its partitions.
func New(cfg Config, crypto Crypto) *Node {
	cfg.validate()
	n := &Node{cfg: cfg, crypto: crypto, owners: map[storage.ReqID]owner{}, state: newState()}
	n.readers = n.newReaders()
	writes := diskFor{n, owner{kind: ownerHostWrite}}
	n.mg = group.New(group.Config{
		Files: group.Files{Slots: superblockPaths, Image: snapshotPath},
		Name:  "metadata", JournalDir: journalDir, Journal: diskFor{n, owner{kind: ownerHostJournal}},
		Images: writes, Superblocks: writes, Misc: diskFor{n, owner{kind: ownerMisc}},
		ServeImages: cfg.clustered(), Logf: n.logf, Fatalf: n.fatal,
	}, metaMachine{n})
	return n
}

// TakeReady returns everything produced since the last call.
func (n *Node) TakeReady() Ready {
	n.flush()
	r := n.ready
	n.ready = Ready{}
	return r
}

// submit stamps r with a fresh id, records its owner and queues it.
func (n *Node) submit(o owner, r storage.Request) storage.ReqID {
	n.nextReqID++
	r.ID = n.nextReqID
	n.owners[r.ID] = o
	n.ready.Disk = append(n.ready.Disk, r)
	return r.ID
}

// diskFor is the vsr.Disk / partition.Disk view of the node for one owner.
type diskFor struct {
	n *Node
	o owner
}

func (d diskFor) Submit(r storage.Request) storage.ReqID { return d.n.submit(d.o, r) }

func (n *Node) onCompletion(c storage.Completion) {
	o, ok := n.owners[c.ID]
	if !ok {
		assert.Failf("completion for unknown request %d", c.ID)
	}
	delete(n.owners, c.ID)
	switch o.kind {
	case ownerHostBoot:
		if h, _ := n.hostOf(o); h != nil {
			h.CompleteBoot(c)
		}
	case ownerHostJournal:
		n.hostJournalCompletion(o, c)
	case ownerHostWrite:
		n.hostWriteCompletion(o, c)
	case ownerPartition:
		n.partitionCompletion(o, c)
	case ownerDropped:
		n.droppedCompletion(o, c)
	case ownerDirDelete:
		n.dirDeleted(o, c)
	case ownerMisc:
		if c.Result != storage.ResultOK && c.Result != storage.ResultNotFound {
			n.logf("housekeeping request %d failed: %s", c.ID, c.Err)
		}
	}
}

func (n *Node) logf(format string, args ...any) {
	n.ready.Logs = append(n.ready.Logs, fmt.Sprintf(format, args...))
}

func (n *Node) fatal(format string, args ...any) {
	if n.ready.Fatal == "" {
		n.ready.Fatal = fmt.Sprintf(format, args...)
	}
}

// flush ends a step's batch: queued prepares and appends go to disk together,
// so concurrent requests share writes and syncs.
func (n *Node) flush() {
	switch {
	case n.mg.Replica() == nil:
	case n.cfg.clustered():
		n.clusterFlush()
		n.flushGroups()
	default:
		n.mg.Replica().Flush()
	}
	n.flushPartitions()
	if n.isHost() {
		n.reportStats()
	}
}
