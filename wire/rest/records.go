// Package rest holds the JSON records of the REST API (http.md 4), so the
// server that writes them and the CLI that reads them agree by
// construction. Byte sizes are exact-unit strings ("10 KiB"); options are
// their config-file text. Conversions to and from the wire types stay with
// each side, which knows its own size formatting and parsing.
package rest

import "github.com/iggygo/iggy/wire"

// Option is one option of a read (RES-14): its value as config-file text,
// whether the resource set it, and where the value comes from.
type Option struct {
	Value      string `json:"value"`
	Explicit   bool   `json:"explicit"`
	Provenance string `json:"provenance"`
}

// Stream is a stream record (http.md 4.4).
type Stream struct {
	ID            uint32            `json:"id"`
	CreatedAt     uint64            `json:"created_at"`
	Name          string            `json:"name"`
	Size          string            `json:"size"`
	MessagesCount uint64            `json:"messages_count"`
	TopicsCount   uint32            `json:"topics_count"`
	Options       map[string]Option `json:"options"`
}

// StreamDetails is a stream with its topics.
type StreamDetails struct {
	Stream
	Topics []Topic `json:"topics"`
}

// Topic is a topic record. Expiry, compression and size cap live only in
// the options (RES-15).
type Topic struct {
	ID              uint32            `json:"id"`
	CreatedAt       uint64            `json:"created_at"`
	Name            string            `json:"name"`
	Size            string            `json:"size"`
	MessagesCount   uint64            `json:"messages_count"`
	PartitionsCount uint32            `json:"partitions_count"`
	Options         map[string]Option `json:"options"`
}

// TopicDetails is a topic with its partitions.
type TopicDetails struct {
	Topic
	Partitions []Partition `json:"partitions"`
}

// Partition is one partition of a topic's details.
type Partition struct {
	ID            uint32 `json:"id"`
	CreatedAt     uint64 `json:"created_at"`
	SegmentsCount uint32 `json:"segments_count"`
	CurrentOffset uint64 `json:"current_offset"`
	Size          string `json:"size"`
	MessagesCount uint64 `json:"messages_count"`
}

// User is UserInfo (http.md 4.2); Status is "active" or "inactive".
type User struct {
	ID        uint32            `json:"id"`
	CreatedAt uint64            `json:"created_at"`
	Status    string            `json:"status"`
	Username  string            `json:"username"`
	Options   map[string]Option `json:"options"`
}

// UserDetails adds the permissions; wire.Permissions' tags are the REST
// names, and encoding/json writes its numeric map keys as decimal strings.
type UserDetails struct {
	User
	Permissions *wire.Permissions `json:"permissions"`
}

// CacheMetric is one partition's cache figures in Stats.
type CacheMetric struct {
	Hits     uint64  `json:"hits"`
	Misses   uint64  `json:"misses"`
	HitRatio float32 `json:"hit_ratio"`
}

// Stats is GET /stats (http.md 4.9).
type Stats struct {
	ProcessID           uint32                 `json:"process_id"`
	CPUUsage            float32                `json:"cpu_usage"`
	TotalCPUUsage       float32                `json:"total_cpu_usage"`
	MemoryUsage         string                 `json:"memory_usage"`
	TotalMemory         string                 `json:"total_memory"`
	AvailableMemory     string                 `json:"available_memory"`
	RunTime             uint64                 `json:"run_time"`
	StartTime           uint64                 `json:"start_time"`
	ReadBytes           string                 `json:"read_bytes"`
	WrittenBytes        string                 `json:"written_bytes"`
	MessagesSizeBytes   string                 `json:"messages_size_bytes"`
	StreamsCount        uint32                 `json:"streams_count"`
	TopicsCount         uint32                 `json:"topics_count"`
	PartitionsCount     uint32                 `json:"partitions_count"`
	SegmentsCount       uint32                 `json:"segments_count"`
	MessagesCount       uint64                 `json:"messages_count"`
	ClientsCount        uint32                 `json:"clients_count"`
	ConsumerGroupsCount uint32                 `json:"consumer_groups_count"`
	Hostname            string                 `json:"hostname"`
	OSName              string                 `json:"os_name"`
	OSVersion           string                 `json:"os_version"`
	KernelVersion       string                 `json:"kernel_version"`
	IggyServerVersion   string                 `json:"iggy_server_version"`
	IggyServerSemver    *uint32                `json:"iggy_server_semver"`
	CacheMetrics        map[string]CacheMetric `json:"cache_metrics"`
	ThreadsCount        uint32                 `json:"threads_count"`
	FreeDiskSpace       string                 `json:"free_disk_space"`
	TotalDiskSpace      string                 `json:"total_disk_space"`
}
