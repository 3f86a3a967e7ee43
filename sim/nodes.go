package sim

import (
	"fmt"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// The fixed part of every simulated node's configuration.
const (
	serverVersion    = "0.0.0-sim"
	segmentSizeBytes = 1 << 20
	rootUsername     = "iggy"
	rootPassword     = "iggy"
)

// simCrypto stands in for BLAKE3 and the token generator: cheap and
// deterministic (a counter per node), so a trace replays without a PRNG.
type simCrypto struct{ minted *uint64 }

func (c simCrypto) HashToken(token string) string { return "t:" + token }

// Random fills b from the same counter, through a multiplicative hash.
func (c simCrypto) Random(b []byte) {
	for i := range b {
		*c.minted++
		b[i] = byte(*c.minted * 0x9e3779b97f4a7c15 >> 56)
	}
}

// NewKey is Random: the simulator's keys need no secrecy.
func (c simCrypto) NewKey(b []byte) { c.Random(b) }

func (c simCrypto) NewToken() string {
	*c.minted++
	return fmt.Sprintf("sim-token-%016x", *c.minted)
}

// newShards builds every shard of one node incarnation, the front first;
// the world and the replay both use it.
func newShards(p nodeParams, marks mark.Sink) []*node.Node {
	nodes := make([]*node.Node, max(p.Shards, 1))
	for i := range nodes {
		nodes[i] = newNode(p, uint8(i), marks)
	}
	return nodes
}

func newNode(p nodeParams, shard uint8, marks mark.Sink) *node.Node {
	cfg := node.Config{
		Replica: p.Replica, Replicas: p.Replicas, Shard: shard, Shards: p.Shards, Marks: marks,
		ServerVersion: serverVersion, SegmentSizeBytes: segmentSizeBytes,
		AdvertisedHost: "127.0.0.1", TCPPort: 8090, MaxTokensPerUser: 10,
		CheckpointEveryOps: p.CheckpointEveryOps, PartitionCheckpointEveryOps: p.CheckpointEveryOps,
		PartitionCacheBytes: p.PartitionCacheBytes, DeferredPollMaxPending: simParkedMax,
		HeartbeatIntervalTicks: p.HeartbeatTicks, Racks: p.Racks, ChangeLogActivityCapacity: simActivityCapacity,
		Root: &node.RootCredentials{Username: rootUsername, PasswordHash: hashPassword(rootPassword)},
	}
	return node.New(cfg, simCrypto{minted: new(uint64)})
}

func hashPassword(p string) string { return "h:" + p }

// runJob answers a compute job as cheaply as the tests do: the "hash" of a
// password is "h:" + password.
func runJob(r compute.Request) compute.Result {
	switch r.Kind {
	case compute.KindHashPassword:
		return compute.Result{ID: r.ID, Data: []byte(hashPassword(r.Password))}
	case compute.KindVerifyPassword:
		if r.Hash == hashPassword(r.Password) {
			return compute.Result{ID: r.ID}
		}
		return compute.Result{ID: r.ID, Code: uint32(wire.InvalidCredentials)}
	}
	return compute.Result{ID: r.ID, Code: uint32(wire.FeatureUnavailable)}
}
