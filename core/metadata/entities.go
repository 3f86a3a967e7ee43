package metadata

import "github.com/iggygo/iggy/wire"

// Entities are owned by the State. Queries hand out pointers to them: callers
// read them and must never change them.

// Stream is a named set of topics.
type Stream struct {
	ID              uint32
	Name            string
	CreatedAtMicros uint64
	CreatedOp       uint64 // op that created it; with ID it names this incarnation
	Options         []byte // explicit options TLV, as stored (sorted by key)
	Topics          []*Topic
	topicNames      map[string]uint32 // lookup only, never iterated
}

// ResizePolicy is the topic option partition_resize_policy.
type ResizePolicy uint8

const (
	ResizeMutable ResizePolicy = 0 // partitions may be added and deleted (default)
	ResizeFixed   ResizePolicy = 1 // both are refused with 2023
)

// Topic is a named, partitioned log inside a stream.
type Topic struct {
	ID                   uint32
	Name                 string
	CreatedAtMicros      uint64
	CreatedOp            uint64
	ExplicitOptions      []byte // TLV the client set, canonical and sorted by key
	DerivedOptions       []byte // TLV the server filled in at create
	MessageExpiry        uint64 // µs; 0 = server default, max = never
	MaxTopicSize         uint64 // bytes; 0 = server default, max = unlimited
	CompressionAlgorithm uint8  // 1 none, 2 gzip; metadata only
	ReplicationFactor    uint8  // 0 = every replica ("all"), else 1..32
	ResizePolicy         ResizePolicy
	Partitions           []Partition // ascending ids
	Groups               []*ConsumerGroup
	NextGroupID          uint32 // consumer-group ids are never reused
	groupNames           map[string]uint32
}

// Partition is one log of a topic.
type Partition struct {
	ID              uint32
	CreatedAtMicros uint64
	// CreatedRevision is the op that gave the partition its current history
	// (create or purge): the incarnation that tells a recreated partition
	// from the old one.
	CreatedRevision uint64
	// Members are the replicas that hold the partition, ascending, fixed
	// at creation (PLACE-15); nil: every replica (replication factor
	// "all", or the roster's size).
	Members []uint8
	// FirstPrimary leads the incarnation's first view (every member
	// opens its group there); Primary is the replica the metadata last
	// gave the partition: FirstPrimary, or the target of the last move it
	// granted (PLACE-11). The group's own view changes may move the
	// primary meanwhile; the metadata primary observes those.
	FirstPrimary, Primary uint8
}

// ClientID is a session's 128-bit consensus client id.
type ClientID struct{ Lo, Hi uint64 }

// Revocation is a partition a member still owns but must hand to Target once
// its polled data is committed (or the node times the move out).
type Revocation struct {
	Partition uint32
	Target    ClientID
}

// Member is one slot of a consumer group.
type Member struct {
	ID         uint32 // the 0-based slot, the member id of the wire
	Client     ClientID
	Partitions []uint32     // owned, ascending; includes pending revocations
	Revoking   []Revocation // ascending by partition; a subset of Partitions
}

// ConsumerGroup shares a topic's partitions among its members.
type ConsumerGroup struct {
	ID         uint32
	Name       string
	Members    []Member // ascending slots
	Generation uint64   // bumped by every rebalance and every completed move
}

// UserStatus is 1 (active) or 2 (inactive).
type UserStatus uint8

const (
	UserActive   UserStatus = 1
	UserInactive UserStatus = 2
)

// RootUserID is the id of root, which always has every right.
const RootUserID uint32 = 0

// User is an account. Permissions nil means no rights beyond the caller's own
// tokens and password.
type User struct {
	ID              uint32
	Username        string
	PasswordHash    string
	Status          UserStatus
	Permissions     *wire.Permissions
	CreatedAtMicros uint64
	tokens          []*PersonalAccessToken // ascending by name
}

// PersonalAccessToken is a named login credential of one user; only the hash
// of the token is kept.
type PersonalAccessToken struct {
	UserID         uint32
	Name           string
	TokenHash      string // lowercase hex BLAKE3 of the raw token
	ExpiryAtMicros uint64 // 0 = never
}

// Expired reports whether the token is past its expiry at nowMicros.
func (t *PersonalAccessToken) Expired(nowMicros uint64) bool {
	return t.ExpiryAtMicros != 0 && t.ExpiryAtMicros <= nowMicros
}
