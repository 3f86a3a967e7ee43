package node

import (
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// A standalone node may run as several shards (system.sharding), each a
// Node stepped by its own loop. Shard 0 is the front: it owns the metadata
// group, every connection and its session, and a share of the partitions.
// Every other shard is a host: it owns only partition logs. The front
// resolves, authorizes and picks the partition of a data request (constant
// work per request) and hands the request to the partition's owner, which
// does the work that grows with the bytes (checksums, append, disk, poll
// reads) and replies to the connection itself. The front keeps the
// connection busy until the owner says it answered, so a connection's
// requests stay in order and its next request sees what the last changed.
//
// A replica set runs one shard: its partition groups live with the
// metadata group.

// ShardMessage is a hand-off between two shards of one node
// (core-shape.md, "inter-shard message"). The caller moves it from one
// shard's Ready to the other's Step, in order for each pair of shards.
type ShardMessage struct {
	From, To uint8
	body     shardBody
}

type shardBody interface{ shardBody() }

// partBody is a front-to-host hand-off about one partition.
type partBody interface {
	shardBody
	part() partKey
}

// sealedMirrorMax bounds the sealed segment ends a host reports per
// partition; DeleteSegments on a remote partition deletes at most that
// many segments at once.
const sealedMirrorMax = 1024

// Front to host.
type (
	// shardOpen makes the host open a partition: create it, or recover it
	// at boot.
	shardOpen struct {
		k        partKey
		cfg      partition.Config
		revision uint64
		create   bool
		cipher   *streamkey.Data // the stream's data cipher; nil: plaintext
	}
	shardDrop  struct{ k partKey }
	shardPurge struct {
		k        partKey
		revision uint64
	}
	shardTruncate struct {
		k         partKey
		watermark uint64
	}
	shardRetention struct {
		k                          partKey
		expiryMicros, maxSizeBytes uint64
	}
	shardSend struct {
		conn     bus.ConnID
		h        wire.RequestHeader
		k        partKey
		batch    []byte
		count    uint32
		policy   durability
		producer *partition.ProducerBatch // an idempotent producer's batch, or nil
	}
	shardPoll struct {
		conn     bus.ConnID
		h        wire.RequestHeader
		q        pollRequest
		deferred bool // a deferred poll (106) with limits d
		d        deferOpts
	}
	// shardFetchRead reads one partition of a grouped fetch (109) and
	// shardFetchCommit stores an OnRead fetch's offset there.
	shardFetchRead struct {
		ref      fetchRef
		bytesMax uint64
	}
	shardFetchCommit struct {
		k        partKey
		kind     partition.OffsetKind
		consumer uint32
		offset   uint64
	}
	// shardCancel: the client cancelled its deferred poll (108).
	shardCancel struct {
		conn    bus.ConnID
		request uint64
	}
	shardOffsetGet struct {
		conn     bus.ConnID
		h        wire.RequestHeader
		k        partKey
		kind     partition.OffsetKind
		consumer uint32
	}
	shardOffsetWrite struct {
		conn     bus.ConnID
		h        wire.RequestHeader
		k        partKey
		kind     partition.OffsetKind
		consumer uint32
		offset   uint64
		delete   bool
		policy   durability
	}
)

// Host to front.
type (
	// shardDone: the host answered the connection's request.
	shardDone struct{ conn bus.ConnID }
	// shardStats mirrors a hosted partition's counters on the front, for
	// the views and DeleteSegments.
	shardStats struct {
		k      partKey
		stats  partition.Stats
		sealed []uint64 // nil: unchanged since the last report
	}
	shardRecovered struct{}
	// shardDropped: the partition's files are deleted.
	shardDropped struct{ k partKey }
	// shardApplied: a purge or truncation is applied, its counters sent.
	shardApplied struct{}
	// shardFetchDone: a grouped fetch's read of one partition ended.
	shardFetchDone struct{ r fetchResult }
)

func (shardOpen) shardBody()             {}
func (shardDrop) shardBody()             {}
func (shardPurge) shardBody()            {}
func (shardTruncate) shardBody()         {}
func (shardRetention) shardBody()        {}
func (shardSend) shardBody()             {}
func (shardPoll) shardBody()             {}
func (shardOffsetGet) shardBody()        {}
func (shardOffsetWrite) shardBody()      {}
func (shardCancel) shardBody()           {}
func (shardFetchRead) shardBody()        {}
func (shardFetchCommit) shardBody()      {}
func (shardFetchDone) shardBody()        {}
func (b shardFetchRead) part() partKey   { return b.ref.q.part }
func (b shardFetchCommit) part() partKey { return b.k }
func (b shardOpen) part() partKey        { return b.k }
func (b shardDrop) part() partKey        { return b.k }
func (b shardPurge) part() partKey       { return b.k }
func (b shardTruncate) part() partKey    { return b.k }
func (b shardRetention) part() partKey   { return b.k }
func (b shardSend) part() partKey        { return b.k }
func (b shardPoll) part() partKey        { return b.q.part }
func (b shardOffsetGet) part() partKey   { return b.k }
func (b shardOffsetWrite) part() partKey { return b.k }

func (shardDone) shardBody()      {}
func (shardStats) shardBody()     {}
func (shardRecovered) shardBody() {}
func (shardDropped) shardBody()   {}
func (shardApplied) shardBody()   {}

// remotePart is the front's mirror of a partition another shard hosts.
type remotePart struct {
	stats  partition.Stats
	sealed []uint64
}

// isHost: this shard owns partitions only.
func (n *Node) isHost() bool { return n.cfg.Shard > 0 }

// ownerShard is the shard that owns partition k. Consecutive ids alternate
// shards, so one partition per stream (the pinned workloads) and one topic's
// partitions both spread evenly.
func (n *Node) ownerShard(k partKey) uint8 {
	if n.cfg.Shards <= 1 {
		return 0
	}
	return uint8((uint64(k.stream) + uint64(k.topic) + uint64(k.partition)) % uint64(n.cfg.Shards))
}

// remote says whether another shard owns k.
func (n *Node) remote(k partKey) bool { return n.ownerShard(k) != n.cfg.Shard }

// toShard queues a hand-off.
func (n *Node) toShard(to uint8, b shardBody) {
	if to == n.cfg.Shard || to >= n.cfg.Shards {
		assert.Failf("hand-off from shard %d to %d of %d", n.cfg.Shard, to, n.cfg.Shards)
	}
	n.ready.Shards = append(n.ready.Shards, ShardMessage{From: n.cfg.Shard, To: to, body: b})
}

// handOff gives the shard owning b's partition a request for it (a connection's
// request keeps the connection busy until that shard's shardDone).
func (n *Node) handOff(b partBody) { n.streamSend(b, false) }

// openRemote hands a partition to its host: created now, or recovered at
// boot.
func (n *Node) openRemote(k partKey, revision uint64, create bool) {
	cipher, _ := n.partCipher(k)
	n.streamSend(shardOpen{k: k, cfg: n.partitionConfig(k), revision: revision, create: create, cipher: cipher}, true)
}

// dropRemote has a host delete a partition; the directories above it are
// deleted once every such host is done (removedirs.go).
func (n *Node) dropRemote(k partKey) { n.streamSend(shardDrop{k: k}, false) }

// streamSend sends b to its partition's shard, unless the directory work
// of the partition's stream makes it wait: an open waits while any is
// pending (the directory delete would take its files), anything else only
// behind messages already waiting, to keep their order. A drop sent counts
// as pending work of the stream, and its topic's directory goes after it.
func (n *Node) streamSend(b partBody, open bool) {
	k := b.part()
	d := n.dirDeletes[k.stream]
	if d != nil && (open || len(d.held) > 0) {
		if open {
			n.cfg.Marks.Hit("node.shard.open_held")
		}
		if len(d.held) >= dirHeldMax {
			assert.Failf("%d hand-offs wait for stream %d's directory", len(d.held), k.stream)
		}
		d.held = append(d.held, b)
		return
	}
	if _, drop := b.(shardDrop); drop {
		if d == nil {
			d = &dirDelete{}
			n.dirDeletes[k.stream] = d
		}
		d.drops++
		d.topics = append(d.topics, topicKey{k.stream, k.topic})
	}
	n.toShard(n.ownerShard(k), b)
}

// hasPartition says whether k is a partition of this node (on any shard).
func (n *Node) hasPartition(k partKey) bool {
	if _, ok := n.partitions[k]; ok {
		return true
	}
	_, ok := n.remotes[k]
	return ok
}

// connOpen says whether a reply to c can still matter: a handed
// connection's front decides that.
func (n *Node) connOpen(c *conn) bool {
	if c.handed {
		return true
	}
	_, ok := n.conns[c.id]
	return ok
}

// partitionStats reads k's counters: its log's, or the mirror of a remote one.
func (n *Node) partitionStats(k partKey) (partition.Stats, bool) {
	if log, ok := n.partitions[k]; ok {
		return log.Stats(), true
	}
	if r, ok := n.remotes[k]; ok {
		return r.stats, true
	}
	return partition.Stats{}, false
}

// sealedWatermark is Log.SealedWatermark for any partition of the node.
func (n *Node) sealedWatermark(k partKey, count uint32) uint64 {
	if log, ok := n.partitions[k]; ok {
		return log.SealedWatermark(count)
	}
	r := n.remotes[k]
	if i := min(int(count), len(r.sealed)); i > 0 {
		return r.sealed[i-1]
	}
	return 0
}

// onShard takes a hand-off from another shard.
func (n *Node) onShard(m ShardMessage) {
	if m.To != n.cfg.Shard {
		assert.Failf("hand-off for shard %d stepped on %d", m.To, n.cfg.Shard)
	}
	switch b := m.body.(type) {
	case shardDone:
		if c, ok := n.conns[b.conn]; ok {
			n.done(c)
		}
	case shardStats:
		n.mirrorStats(b)
	case shardRecovered:
		n.boot.partitionRecovered()
	case shardDropped:
		n.partitionDropped(b.k)
	case shardApplied:
		n.mirrorApplied()
	case shardFetchDone:
		n.fetchPartDone(b.r)
	default:
		n.onHostRequest(b)
	}
}

func (n *Node) mirrorStats(b shardStats) {
	r, ok := n.remotes[b.k]
	if !ok {
		return // deleted meanwhile
	}
	if b.stats != r.stats {
		n.wakeFetches(b.k) // a commit there, maybe
	}
	r.stats = b.stats
	if b.sealed != nil {
		r.sealed = b.sealed
	}
}
