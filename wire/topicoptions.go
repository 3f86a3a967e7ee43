package wire

import (
	"encoding/binary"
	"math"
	"strings"
	"unicode/utf8"
)

// Topic option keys (protocol-data.md 1.3, plus the target release's keys
// durability, consumer_offset_durability, partition_resize_policy and
// replication_factor: RES-25, RES-31, RES-35, RES-36).
const (
	OptCompressionAlgorithm         = "compression_algorithm"
	OptMessageExpiry                = "message_expiry"
	OptMaxTopicSize                 = "max_topic_size"
	OptSegmentSize                  = "segment_size"
	OptEnforceFsync                 = "enforce_fsync"
	OptMessagesRequiredToSave       = "messages_required_to_save"
	OptSizeOfMessagesRequiredToSave = "size_of_messages_required_to_save"
	OptPreallocateSegments          = "preallocate_segments"
	OptDurability                   = "durability"
	OptConsumerOffsetDurability     = "consumer_offset_durability"
	OptPartitionResizePolicy        = "partition_resize_policy"
	OptReplicationFactor            = "replication_factor"
)

// Bounds and defaults of the topic options (protocol-data.md 1.3, 10.4).
const (
	SegmentSizeBytesMin                  = 1 << 20
	SegmentSizeBytesMax                  = 1 << 30
	segmentSizeBytesQuantum              = 512
	MessagesRequiredToSaveMax            = 16 * 1024 * 1024
	SizeOfMessagesRequiredToSaveBytesMax = 1 << 30
	PreallocatedTopicBytesMax            = 64 << 30
	ReplicationFactorMax                 = 32
	expirySecondsMax                     = math.MaxUint32

	// Unlimited is the u64::MAX sentinel: never expire, no size cap.
	Unlimited uint64 = math.MaxUint64
)

// CompressionAlgorithm is stored as metadata only; the server never compresses (RES-16).
type CompressionAlgorithm uint8

const (
	CompressionNone CompressionAlgorithm = 1
	CompressionGzip CompressionAlgorithm = 2
)

// Durability is a topic's completion policy for sends or offset writes (RES-35..38).
type Durability uint8

const (
	DurabilityNone       Durability = 1
	DurabilityReplicated Durability = 2
	DurabilityPersisted  Durability = 3
)

// PartitionResizePolicy says whether partitions may be added or deleted (RES-25..28).
type PartitionResizePolicy uint8

const (
	ResizeMutable PartitionResizePolicy = 1
	ResizeFixed   PartitionResizePolicy = 2
)

var (
	compressionWords = []string{CompressionNone: "none", CompressionGzip: "gzip"}
	durabilityWords  = []string{DurabilityNone: "none", DurabilityReplicated: "replicated",
		DurabilityPersisted: "persisted"}
	resizeWords = []string{ResizeMutable: "mutable", ResizeFixed: "fixed"}
)

// TopicOptions is the typed view of a topic's effective options, explicit
// entries over derived ones, for the server to act on.
type TopicOptions struct {
	CompressionAlgorithm         CompressionAlgorithm
	MessageExpiryMicros          uint64 // Unlimited = never expire
	MaxTopicSizeBytes            uint64 // Unlimited = no cap
	SegmentSizeBytes             uint64
	EnforceFsync                 bool
	MessagesRequiredToSave       uint32
	SizeOfMessagesRequiredToSave uint64 // bytes
	PreallocateSegments          bool
	Durability                   Durability
	ConsumerOffsetDurability     Durability
	PartitionResizePolicy        PartitionResizePolicy
	ReplicationFactor            uint8 // 0 = cluster.default_replication_factor
}

// DefaultTopicOptions is what a topic created without options gets.
func DefaultTopicOptions() TopicOptions {
	return TopicOptions{
		CompressionAlgorithm:         CompressionNone,
		MessageExpiryMicros:          Unlimited,
		MaxTopicSizeBytes:            Unlimited,
		SegmentSizeBytes:             SegmentSizeBytesMax,
		MessagesRequiredToSave:       1024,
		SizeOfMessagesRequiredToSave: 1 << 20,
		Durability:                   DurabilityReplicated,
		ConsumerOffsetDurability:     DurabilityReplicated,
		PartitionResizePolicy:        ResizeMutable,
	}
}

// TopicOptionsFrom reads the effective options from a topic's stored blocks.
// Stored blocks were admitted once; an entry this build cannot read keeps the
// key's default instead of failing the whole topic.
func TopicOptionsFrom(explicit, derived Options) TopicOptions {
	t := DefaultTopicOptions()
	t.apply(derived)
	t.apply(explicit)
	return t
}

func (t *TopicOptions) apply(block Options) {
	for _, e := range block {
		spec, ok := TopicCatalog.Spec(e.Key)
		if !ok {
			continue
		}
		canonical, absent, ok := spec.parse(e.Kind, e.Value)
		if !ok {
			continue
		}
		if absent {
			canonical = spec.Default
		}
		t.set(spec.Key, canonical)
	}
}

// set stores a canonical value (nil = a key without default, left unset).
func (t *TopicOptions) set(key string, v []byte) {
	switch key {
	case OptCompressionAlgorithm:
		t.CompressionAlgorithm = CompressionAlgorithm(wordIndex(compressionWords, string(v)))
	case OptMessageExpiry:
		t.MessageExpiryMicros = binary.LittleEndian.Uint64(v)
	case OptMaxTopicSize:
		t.MaxTopicSizeBytes = binary.LittleEndian.Uint64(v)
	case OptSegmentSize:
		t.SegmentSizeBytes = binary.LittleEndian.Uint64(v)
	case OptEnforceFsync:
		t.EnforceFsync = v[0] == 1
	case OptMessagesRequiredToSave:
		t.MessagesRequiredToSave = binary.LittleEndian.Uint32(v)
	case OptSizeOfMessagesRequiredToSave:
		t.SizeOfMessagesRequiredToSave = binary.LittleEndian.Uint64(v)
	case OptPreallocateSegments:
		t.PreallocateSegments = v[0] == 1
	case OptDurability:
		t.Durability = Durability(wordIndex(durabilityWords, string(v)))
	case OptConsumerOffsetDurability:
		t.ConsumerOffsetDurability = Durability(wordIndex(durabilityWords, string(v)))
	case OptPartitionResizePolicy:
		t.PartitionResizePolicy = PartitionResizePolicy(wordIndex(resizeWords, string(v)))
	case OptReplicationFactor:
		t.ReplicationFactor = 0
		if len(v) == 1 {
			t.ReplicationFactor = v[0]
		}
	}
}

// AdmitTopicCreate admits a CreateTopic block (RES-14): AdmitCreate, then the
// checks that span keys. A finite max_topic_size below the segment size is
// 1019 InvalidTopicSize; preallocation above 64 GiB for the whole create is 4042.
func AdmitTopicCreate(block Options, partitionsCount uint32) (AdmittedOptions, TopicOptions, Code) {
	a, code := TopicCatalog.AdmitCreate(block)
	if code != OK {
		return AdmittedOptions{}, TopicOptions{}, code
	}
	t := TopicOptionsFrom(a.Explicit, a.Derived)
	if code := t.checkTopicSize(); code != OK {
		return AdmittedOptions{}, TopicOptions{}, code
	}
	if t.PreallocateSegments &&
		t.SegmentSizeBytes*uint64(partitionsCount) > PreallocatedTopicBytesMax {
		return AdmittedOptions{}, TopicOptions{}, InvalidOptionValue
	}
	return a, t, OK
}

// AdmitTopicUpdate admits an UpdateTopic block against the topic's current
// options. Only message_expiry and max_topic_size are updatable (RES-9,
// RES-10: other catalog keys get 4103). It returns the verbatim patch for
// ApplyOptionsPatch and the options the topic will have after it.
func AdmitTopicUpdate(block Options, current TopicOptions) (Options, TopicOptions, Code) {
	patch, code := TopicCatalog.AdmitUpdate(block)
	if code != OK {
		return nil, TopicOptions{}, code
	}
	next := current
	next.apply(patch)
	if code := next.checkTopicSize(); code != OK {
		return nil, TopicOptions{}, code
	}
	return patch, next, OK
}

func (t TopicOptions) checkTopicSize() Code {
	if t.MaxTopicSizeBytes != Unlimited && t.MaxTopicSizeBytes < t.SegmentSizeBytes {
		return InvalidTopicSize
	}
	return OK
}

// TopicCatalog is the topic scope: the eight keys of the snapshot in their
// DescribeOptions order, then the target release's keys. Per the target
// README only message_expiry and max_topic_size are updatable or resettable.
var TopicCatalog = &Catalog{Scope: ScopeTopic, Specs: []OptionSpec{
	{Key: OptCompressionAlgorithm, Kind: KindString, Default: []byte("none"),
		Description: "Compression algorithm recorded for the topic (none or gzip); never applied by the server.",
		parse:       parseCompressionOption},
	{Key: OptMessageExpiry, Kind: KindUint64, Default: u64Bytes(Unlimited),
		Description: "Age after which sealed segments expire, in microseconds; u64::MAX never expires.",
		Updatable:   true, Resettable: true, parse: parseExpiryOption},
	{Key: OptMaxTopicSize, Kind: KindUint64, Default: u64Bytes(Unlimited),
		Description: "Cap on sealed bytes of the topic, in bytes; u64::MAX is unlimited.",
		Updatable:   true, Resettable: true, parse: parseMaxTopicSizeOption},
	{Key: OptSegmentSize, Kind: KindUint64, Default: u64Bytes(SegmentSizeBytesMax),
		Description: "Soft size limit of one segment: a multiple of 512 bytes from 1 MiB to 1 GiB.",
		parse:       parseSegmentSizeOption},
	{Key: OptEnforceFsync, Kind: KindBool, Default: boolBytes(false),
		Description: "Whether flushes of the topic's partitions fsync.",
		parse:       parseBoolOption},
	{Key: OptMessagesRequiredToSave, Kind: KindUint32, Default: u32Bytes(1024),
		Description: "Flush a partition journal once it holds this many messages (1 to 16777216).",
		parse:       parseMessagesToSaveOption},
	{Key: OptSizeOfMessagesRequiredToSave, Kind: KindUint64, Default: u64Bytes(1 << 20),
		Description: "Flush a partition journal once it holds this many bytes (at most 1 GiB).",
		parse:       parseSizeToSaveOption},
	{Key: OptPreallocateSegments, Kind: KindBool, Default: boolBytes(false),
		Description: "Reserve each segment's bytes when it is opened (at most 64 GiB per create).",
		parse:       parseBoolOption},
	{Key: OptDurability, Kind: KindString, Default: []byte("replicated"),
		Description: "Completion policy of sends: none, replicated or persisted.",
		Critical:    true, parse: wordOption(durabilityWords)},
	{Key: OptConsumerOffsetDurability, Kind: KindString, Default: []byte("replicated"),
		Description: "Completion policy of explicit offset writes: none, replicated or persisted.",
		Critical:    true, parse: wordOption(durabilityWords)},
	{Key: OptPartitionResizePolicy, Kind: KindString, Default: []byte("mutable"),
		Description: "mutable allows adding and deleting partitions; fixed refuses both.",
		Critical:    true, parse: wordOption(resizeWords)},
	{Key: OptReplicationFactor, Kind: KindUint8,
		Description: "Replicas of each partition, 1 to 32; absent or all uses the cluster default.",
		Critical:    true, parse: parseReplicationFactorOption},
}}

func parseCompressionOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	if kind != KindUint8 {
		return wordOption(compressionWords)(kind, v)
	}
	if len(v) != 1 || v[0] == 0 || int(v[0]) >= len(compressionWords) {
		return nil, false, false
	}
	return []byte(compressionWords[v[0]]), false, true
}

// wordOption accepts one of words (index 0 unused) as a String, in any case.
func wordOption(words []string) optionParser {
	return func(kind ValueKind, v []byte) ([]byte, bool, bool) {
		if kind != KindString {
			return nil, false, false
		}
		i := wordIndex(words, strings.ToLower(string(v)))
		return []byte(words[i]), false, i != 0
	}
}

// wordIndex returns the index of w in words, or 0 when absent.
func wordIndex(words []string, w string) int {
	for i := 1; i < len(words); i++ {
		if words[i] == w {
			return i
		}
	}
	return 0
}

// u64Option reads a Uint64 value or hands a String to fromString; zero is the
// "server default" sentinel and counts as absent.
func u64Option(kind ValueKind, v []byte, fromString func(string) (uint64, bool)) (uint64, bool) {
	switch {
	case kind == KindUint64 && len(v) == 8:
		return binary.LittleEndian.Uint64(v), true
	case kind == KindString && utf8.Valid(v):
		return fromString(string(v))
	}
	return 0, false
}

func parseExpiryOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	n, ok := u64Option(kind, v, parseExpiryWord)
	return u64Bytes(n), n == 0, ok
}

// parseExpiryWord follows IggyExpiry (config.md 3.1 B): never/default words,
// else humantime of at most u32::MAX seconds.
func parseExpiryWord(s string) (uint64, bool) {
	switch s {
	case "unlimited", "Unlimited", "none", "None", "never_expire":
		return Unlimited, true
	case "default", "Default", "server_default", "Server_default":
		return 0, true
	}
	micros, ok := parseHumantimeMicros(s)
	return micros, ok && micros/1e6 <= expirySecondsMax
}

func parseMaxTopicSizeOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	n, ok := u64Option(kind, v, func(s string) (uint64, bool) {
		switch s {
		case "server_default":
			return 0, true
		case "unlimited", "Unlimited", "none", "None":
			return Unlimited, true
		}
		return parseByteSize(s)
	})
	return u64Bytes(n), n == 0, ok
}

func parseSegmentSizeOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	n, ok := u64Option(kind, v, parseByteSize)
	valid := n == 0 || (n >= SegmentSizeBytesMin && n <= SegmentSizeBytesMax &&
		n%segmentSizeBytesQuantum == 0)
	return u64Bytes(n), n == 0, ok && valid
}

func parseSizeToSaveOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	n, ok := u64Option(kind, v, parseByteSize)
	return u64Bytes(n), n == 0, ok && n <= SizeOfMessagesRequiredToSaveBytesMax
}

// parseBoolOption takes exactly one byte 0 or 1, or the words true/false.
func parseBoolOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	switch {
	case kind == KindBool && len(v) == 1 && v[0] <= 1:
		return []byte{v[0]}, false, true
	case kind == KindString:
		b, ok := parseBoolWord(string(v))
		return boolBytes(b), false, ok
	}
	return nil, false, false
}

func parseMessagesToSaveOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	var n uint32
	ok := false
	switch {
	case kind == KindUint32 && len(v) == 4:
		n, ok = binary.LittleEndian.Uint32(v), true
	case kind == KindString:
		n, ok = parseDecimalU32(string(v))
	}
	return u32Bytes(n), false, ok && n >= 1 && n <= MessagesRequiredToSaveMax
}

// parseReplicationFactorOption takes 1..32 as Uint8 or a decimal String;
// "all" is the cluster default and counts as absent (RES-31, RES-33).
func parseReplicationFactorOption(kind ValueKind, v []byte) ([]byte, bool, bool) {
	var n uint32
	ok := false
	switch {
	case kind == KindUint8 && len(v) == 1:
		n, ok = uint32(v[0]), true
	case kind == KindString && strings.EqualFold(string(v), "all"):
		return nil, true, true
	case kind == KindString:
		n, ok = parseDecimalU32(string(v))
	}
	return []byte{uint8(n)}, false, ok && n >= 1 && n <= ReplicationFactorMax
}
