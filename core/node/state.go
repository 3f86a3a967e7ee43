package node

import (
	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// state is everything the node knows, split from Node's plumbing.
type state struct {
	meta *metadata.State
	// ciphers caches the data cipher of each encrypted stream incarnation;
	// hostCiphers holds, on a host shard, the cipher of each partition the
	// front handed over with it (a host has no metadata).
	ciphers     map[streamCipherKey]*streamkey.Data
	hostCiphers map[partKey]*streamkey.Data
	// unopened holds the streams a replica set's node could not open.
	unopened map[streamCipherKey]bool
	// nonceBase, drawn once, and nonceCount make every nonce the node seals
	// with (encryption.go).
	nonceBase   [streamkey.NonceBytes]byte
	nonceSeeded bool
	nonceCount  uint64
	// rotationOp is the last op a key rotation sweep proposed;
	// rotationSettled says the settled state was logged (rotation.go).
	rotationOp      uint64
	rotationSettled bool
	// mg hosts the metadata group: its replica, journal, superblock and
	// checkpoints.
	mg *group.Host
	// applied is the op the state reflects, appliedChecksum its prepare's.
	applied, appliedChecksum uint64
	appliedLog               appliedRing // for TakeApplied
	boot                     *booter
	installing               *vsr.Install // a state transfer waiting for the checkpoint under way

	clients map[wire.U128]*client
	// clientsLimit is the client table's capacity committed by the first
	// stamped register this metadata group applied (0: none yet). It binds
	// every later register whatever the configuration says now (SESS-29)
	// and is part of the checkpoint image (SESS-28).
	clientsLimit int
	conns        map[bus.ConnID]*conn

	partitions map[partKey]*partition.Log
	// remotes mirror the partitions other shards host (front only, shards.go).
	remotes map[partKey]*remotePart
	// statsDirty are hosted partitions whose counters the front has not
	// seen yet, sentStats what it last saw (hosts only).
	statsDirty    []partKey
	statsDirtySet map[partKey]bool
	sentStats     map[partKey]hostReport
	// dirDeletes are the streams whose directory waits for hosts to delete
	// partitions under it, or is being deleted (removedirs.go).
	dirDeletes map[uint32]*dirDelete
	// mirrorWaits counts purges and truncations hosts have not confirmed;
	// parkedViews wait for them (shard_views.go).
	mirrorWaits int
	parkedViews []parkedView
	ev          evidence  // quorum evidence (replica sets only, evidence.go)
	place       placement // readiness, observed primaries and moves (placement.go)
	damaged     []partKey // partitions whose log read a bad record (pgroup_damage.go)
	// heardAt is the tick each replica's last message arrived (any group),
	// 0 never: GetClusterMetadata's node status (clustermeta.go).
	heardAt [vsr.ReplicasMax]uint64
	// writeRetries are the partitions broken by a failed write, waiting to
	// be reopened (writeretry.go).
	writeRetries map[partKey]*writeRetry
	// pgroups are the partitions' consensus groups (replica sets only).
	pgroups        map[partKey]*pgroup
	pgroupKeys     []partKey // sorted keys of pgroups; nil when stale
	pgroupGen      uint64
	budgetedGroups int                // len(pgroups) when their repair shares were last set
	partKeys       []partKey          // sorted keys of partitions; nil when stale
	logGens        map[partKey]uint64 // incarnation of each open log object
	logGen         uint64
	// waiting maps a proposed metadata op to the connection awaiting its reply.
	waiting map[uint64]waiter
	// forwards are requests a backup handed to its primary, by client.
	forwards   map[wire.U128]forwarded
	forwardSeq uint64 // nonces of forwarded registers and logouts
	// leases are when each session's lease was last renewed, in ticks, by
	// client (lease.go; the primary's only).
	leases map[wire.U128]uint64
	// leaseSweptAt is the tick of the last lease sweep.
	leaseSweptAt uint64
	// receipts are the send receipts of this node's standalone partitions
	// (receipts.go; a replica set's live in their groups).
	receipts map[partKey]*logReceipts
	// writes maps an append or offset write awaiting its completion to its requester.
	writes  map[writeKey]pendingWrite
	polls   map[uint64]pendingPoll
	pollSeq uint64
	// parked: deferred polls waiting for data or their wait (deferred.go).
	parked parkedPolls
	// fetches: grouped fetches in flight, on the front (grouped.go).
	fetches groupFetches

	balanced map[topicKey]uint32 // round-robin cursors of Balanced sends
	// lastProducerID is the last id NextProducerId issued (producers.go).
	lastProducerID uint64
	policies       map[topicKey]durability

	startMicros uint64

	jobs      map[uint64]func(compute.Result) // handed out, awaiting their result
	nextJobID uint64
	callouts  uint32  // external_auth callouts among jobs (externalauth.go)
	logins    *logins // password logins waiting for their check, and backoff
}

func newState() *state {
	return &state{
		ciphers:       map[streamCipherKey]*streamkey.Data{},
		hostCiphers:   map[partKey]*streamkey.Data{},
		unopened:      map[streamCipherKey]bool{},
		clients:       map[wire.U128]*client{},
		conns:         map[bus.ConnID]*conn{},
		partitions:    map[partKey]*partition.Log{},
		remotes:       map[partKey]*remotePart{},
		sentStats:     map[partKey]hostReport{},
		statsDirtySet: map[partKey]bool{},
		dirDeletes:    map[uint32]*dirDelete{},
		pgroups:       map[partKey]*pgroup{},
		writeRetries:  map[partKey]*writeRetry{},
		logGens:       map[partKey]uint64{},
		waiting:       map[uint64]waiter{},
		forwards:      map[wire.U128]forwarded{},
		leases:        map[wire.U128]uint64{},
		writes:        map[writeKey]pendingWrite{},
		receipts:      map[partKey]*logReceipts{},
		jobs:          map[uint64]func(compute.Result){},
		policies:      map[topicKey]durability{},
		polls:         map[uint64]pendingPoll{},
		balanced:      map[topicKey]uint32{},
		logins:        newLogins(),
	}
}

type topicKey struct{ stream, topic uint32 }

type partKey struct{ stream, topic, partition uint32 }
