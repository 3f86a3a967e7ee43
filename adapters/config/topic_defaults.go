package config

import "time"

// TopicDefaults are the values a topic gets for options its create request
// does not send (config.md §5; stored as "derived"). They used to be config
// keys; setting the old keys stops the boot (§6).
type TopicDefaults struct {
	CompressionAlgorithm string
	// MessageExpiry zero = never expires.
	MessageExpiry time.Duration
	// MaxTopicSize zero = unlimited.
	MaxTopicSize                 uint64
	SegmentSize                  uint64
	EnforceFsync                 bool
	MessagesRequiredToSave       uint32
	SizeOfMessagesRequiredToSave uint64
	PreallocateSegments          bool
	Durability                   string
	ConsumerOffsetDurability     string
	PartitionResizePolicy        string
	// ReplicationFactor comes from cluster.default_replication_factor.
	ReplicationFactor ReplicationFactor
}

// Segment size bounds of the segment_size topic option.
const (
	SegmentSizeMin      uint64 = 1 << 20
	SegmentSizeMax      uint64 = 1 << 30
	SegmentSizeMultiple uint64 = 512
)

// topicDefaults returns the topic option defaults for a loaded config.
func topicDefaults(factor ReplicationFactor) TopicDefaults {
	return TopicDefaults{
		CompressionAlgorithm:         "none",
		SegmentSize:                  SegmentSizeMax,
		MessagesRequiredToSave:       1024,
		SizeOfMessagesRequiredToSave: 1 << 20,
		Durability:                   "replicated",
		ConsumerOffsetDurability:     "replicated",
		PartitionResizePolicy:        "mutable",
		ReplicationFactor:            factor,
	}
}
