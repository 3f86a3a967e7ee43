package main

import (
	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// api is every server operation the commands call, so that each command is
// written once: the binary client (*client.Client, over tcp, quic and ws)
// and httpAPI (the REST API) both provide it. An operation the REST API has
// no route for refuses with errNotOverHTTP.
type api interface {
	Ping() error
	LoginUser(username, password string) (client.LoginInfo, error)
	LoginWithToken(token string) (client.LoginInfo, error)
	GetMe() (wire.ClientDetails, error)
	GetStats() (wire.Stats, error)
	GetClusterMetadata() (wire.ClusterMetadata, error)
	DescribeOptions(scope wire.OptionScope) ([]wire.OptionDescriptor, error)
	GetSnapshotFile(compression uint8, types []uint8) ([]byte, error)

	CreateStream(name string) (wire.StreamResponse, error)
	GetStreams() ([]wire.StreamResponse, error)
	GetStream(stream wire.Identifier) (wire.StreamDetails, bool, error)
	DeleteStream(stream wire.Identifier) error
	UpdateResource(q wire.UpdateResourceRequest) error

	CreateTopic(stream wire.Identifier, name string, partitions uint32, options wire.Options) (wire.TopicDetails, error)
	GetTopics(stream wire.Identifier) ([]wire.TopicHeader, error)
	GetTopic(stream, topic wire.Identifier) (wire.TopicDetails, bool, error)
	DeleteTopic(stream, topic wire.Identifier) error
	CreatePartitions(stream, topic wire.Identifier, count uint32) error
	DeletePartitions(stream, topic wire.Identifier, count uint32) error
	DeleteSegments(stream, topic wire.Identifier, partition, count uint32) error

	SendMessages(stream, topic wire.Identifier, partitioning wire.Partitioning, msgs []client.Message) (uint64, error)
	PollMessages(consumer wire.Consumer, stream, topic wire.Identifier, partition *uint32,
		kind wire.PollingKind, value uint64, count uint32, autoCommit bool) (uint64, []client.ReceivedMessage, error)
	GetOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32) (wire.ConsumerOffsetInfo, bool, error)
	StoreOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32, offset uint64) error
	DeleteOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32) error

	CreateConsumerGroup(stream, topic wire.Identifier, name string) (wire.ConsumerGroupResponse, error)
	GetConsumerGroups(stream, topic wire.Identifier) ([]wire.ConsumerGroupResponse, error)
	GetConsumerGroup(stream, topic, group wire.Identifier) (wire.ConsumerGroupDetails, bool, error)
	DeleteConsumerGroup(stream, topic, group wire.Identifier) error
	JoinConsumerGroup(stream, topic, group wire.Identifier) error
	LeaveConsumerGroup(stream, topic, group wire.Identifier) error

	CreateUser(username, password string, status wire.UserStatus, perms *wire.Permissions) (wire.UserDetails, error)
	GetUsers() ([]wire.UserInfo, error)
	GetUser(user wire.Identifier) (wire.UserDetails, bool, error)
	DeleteUser(user wire.Identifier) error
	UpdatePermissions(user wire.Identifier, perms *wire.Permissions) error
	ChangePassword(user wire.Identifier, current, next string) error

	CreatePersonalAccessToken(name string, expiry uint64) (string, error)
	GetPersonalAccessTokens() ([]wire.PATInfo, error)
	DeletePersonalAccessToken(name string) error

	Close() error
}

var _ api = (*client.Client)(nil)
