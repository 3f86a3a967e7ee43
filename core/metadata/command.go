package metadata

import "github.com/iggygo/iggy/wire"

// Kind tags a command in the op log. Values equal the consensus operation
// byte where the protocol has one (protocol-framing.md section 2); the rest
// are ours: 150 UpdateResource (the target release gives code 16 no
// operation byte), 69 DeleteExpiredTokens, 70 MovePrimary and 71 SetStreamKeyOptions.
type Kind uint8

const (
	KindRemoveMember        Kind = 66
	KindCompleteRevocation  Kind = 67
	KindTruncatePartition   Kind = 68
	KindDeleteExpiredTokens Kind = 69
	KindMovePrimary         Kind = 70
	KindSetStreamKeyOptions Kind = 71
	KindCreateStream        Kind = 128
	KindUpdateStream        Kind = 129
	KindDeleteStream        Kind = 130
	KindPurgeStream         Kind = 131
	KindCreateTopic         Kind = 132
	KindUpdateTopic         Kind = 133
	KindDeleteTopic         Kind = 134
	KindPurgeTopic          Kind = 135
	KindCreatePartitions    Kind = 136
	KindDeletePartitions    Kind = 137
	KindCreateConsumerGroup Kind = 139
	KindDeleteConsumerGroup Kind = 140
	KindCreateUser          Kind = 141
	KindUpdateUser          Kind = 142
	KindDeleteUser          Kind = 143
	KindChangePassword      Kind = 144
	KindUpdatePermissions   Kind = 145
	KindCreatePAT           Kind = 146
	KindDeletePAT           Kind = 147
	KindJoinConsumerGroup   Kind = 148
	KindLeaveConsumerGroup  Kind = 149
	KindUpdateResource      Kind = 150
)

// Command is one metadata operation as logged. Implementations are the
// pointer types below; Decode returns them and Apply takes them.
type Command interface {
	Kind() Kind
	// walk reads or writes every field in log order (codec.go).
	walk(c *codec)
}

// CreateStream creates a stream with the lowest free id.
type CreateStream struct {
	Name    string
	Options []byte // canonical options TLV (sorted by key)
}

// UpdateStream renames a stream and patches its options (code 204).
type UpdateStream struct {
	Stream  wire.Identifier
	Name    string
	Options []byte // entries to set
}

// DeleteStream deletes a stream with its topics, partitions and groups.
type DeleteStream struct{ Stream wire.Identifier }

// PurgeStream empties every partition of every topic of a stream.
type PurgeStream struct{ Stream wire.Identifier }

// CreateTopic creates a topic with the lowest free id in its stream. The
// node canonicalizes the options and passes the typed values they give.
type CreateTopic struct {
	Stream               wire.Identifier
	Name                 string
	PartitionsCount      uint32
	ExplicitOptions      []byte
	DerivedOptions       []byte
	MessageExpiry        uint64
	MaxTopicSize         uint64
	CompressionAlgorithm uint8
	ReplicationFactor    uint8 // 0 = all replicas
	ResizePolicy         ResizePolicy
	Placement            Placement // stamped by the metadata primary
}

// UpdateTopic renames a topic and sets options (code 304).
type UpdateTopic struct {
	Stream, Topic wire.Identifier
	Name          string
	Options       []byte // entries to set, canonical kinds
}

// DeleteTopic deletes a topic with its partitions and groups.
type DeleteTopic struct{ Stream, Topic wire.Identifier }

// PurgeTopic empties every partition of a topic.
type PurgeTopic struct{ Stream, Topic wire.Identifier }

// CreatePartitions appends Count partitions (1..1000), placed at the
// topic's replication factor (PLACE-16).
type CreatePartitions struct {
	Stream, Topic wire.Identifier
	Count         uint32
	Placement     Placement // stamped by the metadata primary
}

// MovePrimary gives a partition's primary to To, a member, once the
// metadata primary confirmed that To applied what From committed
// (PLACE-11). From, the primary it saw, drains and hands its group to To
// (PLACE-12). It is the metadata primary's own op, never a client's.
type MovePrimary struct {
	Stream, Topic, Partition uint32
	Revision                 uint64
	From, To                 uint8
}

// DeletePartitions removes the Count partitions with the highest ids.
type DeletePartitions struct {
	Stream, Topic wire.Identifier
	Count         uint32
}

// TruncatePartition deletes a partition's sealed segments below Watermark
// (DeleteSegments, resolved by the partition's owner into an offset).
type TruncatePartition struct {
	Stream, Topic wire.Identifier
	Partition     uint32
	Watermark     uint64
}

// CreateConsumerGroup creates a group with the topic's next group id.
type CreateConsumerGroup struct {
	Stream, Topic wire.Identifier
	Name          string
}

// DeleteConsumerGroup deletes a group.
type DeleteConsumerGroup struct{ Stream, Topic, Group wire.Identifier }

// JoinConsumerGroup adds Client to a group and rebalances cooperatively.
// Unsettled lists the partitions (ascending) that hold polled but
// uncommitted data for this group: moving one of them waits as a pending
// revocation instead of happening at once.
type JoinConsumerGroup struct {
	Stream, Topic, Group wire.Identifier
	Client               ClientID
	Unsettled            []uint32
}

// LeaveConsumerGroup removes Client from a group and rebalances eagerly.
type LeaveConsumerGroup struct {
	Stream, Topic, Group wire.Identifier
	Client               ClientID
}

// RemoveMember removes a disconnected client from every group (op 66).
type RemoveMember struct{ Client ClientID }

// CompleteRevocation finishes the pending move of Partition (op 67).
type CompleteRevocation struct {
	Stream, Topic, Group wire.Identifier
	Partition            uint32
}

// CreateUser creates a user; applied to an empty user table it creates root.
type CreateUser struct {
	Username     string
	PasswordHash string
	Status       UserStatus // any value but 2 is stored as active
	Permissions  *wire.Permissions
}

// UpdateUser changes a username and/or status (code 35).
type UpdateUser struct {
	User     wire.Identifier
	Username string     // "" = unchanged
	Status   UserStatus // 0 = unchanged; values other than 1 and 2 are ignored
}

// DeleteUser deletes a user and its tokens.
type DeleteUser struct{ User wire.Identifier }

// ChangePassword replaces a password hash. ExpectedHash is the stored hash
// the node verified the current password against, or "" if the current
// password was wrong: a mismatch at apply commits as 42.
type ChangePassword struct {
	User         wire.Identifier
	ExpectedHash string
	PasswordHash string
}

// UpdatePermissions replaces a user's permissions (nil clears them).
type UpdatePermissions struct {
	User        wire.Identifier
	Permissions *wire.Permissions
}

// CreatePersonalAccessToken stores a token of the caller. LifetimeMicros is µs
// added to the op's time; 0 and max mean the token never expires.
type CreatePersonalAccessToken struct {
	Name           string
	TokenHash      string
	LifetimeMicros uint64
}

// DeletePersonalAccessToken deletes one of the caller's tokens by name.
type DeletePersonalAccessToken struct{ Name string }

// DeleteExpiredTokens removes every token expired at the op's time.
type DeleteExpiredTokens struct{}

// SetStreamKeyOptions replaces the options of one stream incarnation: how
// the node adds and drops the wraps of an encrypted stream's key during a
// rotation (ENC-19, ENC-22), a server action.
type SetStreamKeyOptions struct {
	Stream    uint32
	CreatedOp uint64 // the incarnation: ids are reused after a delete
	Options   []byte // the whole block, canonical
}

// Scope names the kind of resource UpdateResource patches.
type Scope uint8

const (
	ScopeTopic  Scope = 1 // the DescribeOptions scope numbers
	ScopeStream Scope = 2
	ScopeUser   Scope = 3
)

// UpdateResource patches one stream, topic or user (code 16): it sets the
// keys it carries, resets the keys it lists and keeps every other key.
type UpdateResource struct {
	Scope  Scope
	Stream wire.Identifier // ScopeStream and ScopeTopic
	Topic  wire.Identifier // ScopeTopic
	User   wire.Identifier // ScopeUser
	Name   string          // new stream/topic name or username; "" = unchanged
	Status UserStatus      // ScopeUser; 0 = unchanged
	Set    []byte          // option entries to set (canonical kinds)
	Reset  []byte          // keys to reset, each with the default the node derived
}

func (*CreateStream) Kind() Kind              { return KindCreateStream }
func (*UpdateStream) Kind() Kind              { return KindUpdateStream }
func (*DeleteStream) Kind() Kind              { return KindDeleteStream }
func (*PurgeStream) Kind() Kind               { return KindPurgeStream }
func (*CreateTopic) Kind() Kind               { return KindCreateTopic }
func (*UpdateTopic) Kind() Kind               { return KindUpdateTopic }
func (*DeleteTopic) Kind() Kind               { return KindDeleteTopic }
func (*PurgeTopic) Kind() Kind                { return KindPurgeTopic }
func (*CreatePartitions) Kind() Kind          { return KindCreatePartitions }
func (*DeletePartitions) Kind() Kind          { return KindDeletePartitions }
func (*TruncatePartition) Kind() Kind         { return KindTruncatePartition }
func (*CreateConsumerGroup) Kind() Kind       { return KindCreateConsumerGroup }
func (*DeleteConsumerGroup) Kind() Kind       { return KindDeleteConsumerGroup }
func (*JoinConsumerGroup) Kind() Kind         { return KindJoinConsumerGroup }
func (*LeaveConsumerGroup) Kind() Kind        { return KindLeaveConsumerGroup }
func (*RemoveMember) Kind() Kind              { return KindRemoveMember }
func (*CompleteRevocation) Kind() Kind        { return KindCompleteRevocation }
func (*MovePrimary) Kind() Kind               { return KindMovePrimary }
func (*CreateUser) Kind() Kind                { return KindCreateUser }
func (*UpdateUser) Kind() Kind                { return KindUpdateUser }
func (*DeleteUser) Kind() Kind                { return KindDeleteUser }
func (*ChangePassword) Kind() Kind            { return KindChangePassword }
func (*UpdatePermissions) Kind() Kind         { return KindUpdatePermissions }
func (*CreatePersonalAccessToken) Kind() Kind { return KindCreatePAT }
func (*DeletePersonalAccessToken) Kind() Kind { return KindDeletePAT }
func (*DeleteExpiredTokens) Kind() Kind       { return KindDeleteExpiredTokens }
func (*SetStreamKeyOptions) Kind() Kind       { return KindSetStreamKeyOptions }
func (*UpdateResource) Kind() Kind            { return KindUpdateResource }

// newCommand returns the zero command of a kind, or nil for an unknown kind.
func newCommand(k Kind) Command {
	switch k {
	case KindCreateStream:
		return &CreateStream{}
	case KindUpdateStream:
		return &UpdateStream{}
	case KindDeleteStream:
		return &DeleteStream{}
	case KindPurgeStream:
		return &PurgeStream{}
	case KindCreateTopic:
		return &CreateTopic{}
	case KindUpdateTopic:
		return &UpdateTopic{}
	case KindDeleteTopic:
		return &DeleteTopic{}
	case KindPurgeTopic:
		return &PurgeTopic{}
	case KindCreatePartitions:
		return &CreatePartitions{}
	case KindDeletePartitions:
		return &DeletePartitions{}
	case KindTruncatePartition:
		return &TruncatePartition{}
	case KindCreateConsumerGroup:
		return &CreateConsumerGroup{}
	case KindDeleteConsumerGroup:
		return &DeleteConsumerGroup{}
	case KindJoinConsumerGroup:
		return &JoinConsumerGroup{}
	case KindLeaveConsumerGroup:
		return &LeaveConsumerGroup{}
	case KindRemoveMember:
		return &RemoveMember{}
	case KindCompleteRevocation:
		return &CompleteRevocation{}
	case KindMovePrimary:
		return &MovePrimary{}
	}
	return newUserCommand(k)
}

func newUserCommand(k Kind) Command {
	switch k {
	case KindCreateUser:
		return &CreateUser{}
	case KindUpdateUser:
		return &UpdateUser{}
	case KindDeleteUser:
		return &DeleteUser{}
	case KindChangePassword:
		return &ChangePassword{}
	case KindUpdatePermissions:
		return &UpdatePermissions{}
	case KindCreatePAT:
		return &CreatePersonalAccessToken{}
	case KindDeletePAT:
		return &DeletePersonalAccessToken{}
	case KindDeleteExpiredTokens:
		return &DeleteExpiredTokens{}
	case KindSetStreamKeyOptions:
		return &SetStreamKeyOptions{}
	case KindUpdateResource:
		return &UpdateResource{}
	}
	return nil
}
