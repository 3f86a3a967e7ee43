package wire

import (
	"math"

	"github.com/iggygo/iggy/internal/assert"
)

// System payloads, protocol-framing.md section 7 (DescribeOptions, 7.5, lives
// with the options codec).

// Stats is the GetStats (10) reply body (7.2). The strings start at offset
// 108 (10 item 12).
type Stats struct {
	ProcessID           uint32
	CPUUsage            float32
	TotalCPUUsage       float32
	MemoryUsage         uint64
	TotalMemory         uint64
	AvailableMemory     uint64
	RunTime             uint64 // µs
	StartTime           uint64 // µs since the epoch
	ReadBytes           uint64
	WrittenBytes        uint64
	MessagesSizeBytes   uint64
	StreamsCount        uint32
	TopicsCount         uint32
	PartitionsCount     uint32
	SegmentsCount       uint32
	MessagesCount       uint64
	ClientsCount        uint32 // all connections on the node
	ConsumerGroupsCount uint32
	Hostname            string
	OSName              string
	OSVersion           string
	KernelVersion       string
	ServerVersion       string
	ServerSemver        uint32 // major×1,000,000 + minor×1,000 + patch, 0 if unknown
	CacheMetrics        []CacheMetric
	ThreadsCount        uint32
	FreeDiskSpace       uint64
	TotalDiskSpace      uint64
}

// CacheMetric is one 32-byte cache entry of Stats.
type CacheMetric struct {
	StreamID    uint32
	TopicID     uint32
	PartitionID uint32
	Hits        uint64
	Misses      uint64
	HitRatio    float32
}

const cacheMetricSize = 4 + 4 + 4 + 8 + 8 + 4

// Encode writes the stats body.
func (s Stats) Encode(w *Writer) {
	w.U32(s.ProcessID)
	w.U32(math.Float32bits(s.CPUUsage))
	w.U32(math.Float32bits(s.TotalCPUUsage))
	for _, v := range []uint64{s.MemoryUsage, s.TotalMemory, s.AvailableMemory, s.RunTime, s.StartTime,
		s.ReadBytes, s.WrittenBytes, s.MessagesSizeBytes} {
		w.U64(v)
	}
	for _, v := range []uint32{s.StreamsCount, s.TopicsCount, s.PartitionsCount, s.SegmentsCount} {
		w.U32(v)
	}
	w.U64(s.MessagesCount)
	w.U32(s.ClientsCount)
	w.U32(s.ConsumerGroupsCount)
	for _, v := range []string{s.Hostname, s.OSName, s.OSVersion, s.KernelVersion, s.ServerVersion} {
		w.Str32(v)
	}
	w.U32(s.ServerSemver)
	w.U32(uint32(len(s.CacheMetrics)))
	for _, m := range s.CacheMetrics {
		w.U32(m.StreamID)
		w.U32(m.TopicID)
		w.U32(m.PartitionID)
		w.U64(m.Hits)
		w.U64(m.Misses)
		w.U32(math.Float32bits(m.HitRatio))
	}
	w.U32(s.ThreadsCount)
	w.U64(s.FreeDiskSpace)
	w.U64(s.TotalDiskSpace)
}

// DecodeStats reads a stats body.
func DecodeStats(body []byte) (Stats, Code) {
	r := NewReader(body)
	s := Stats{ProcessID: r.U32(), CPUUsage: readF32(r), TotalCPUUsage: readF32(r)}
	for _, p := range []*uint64{&s.MemoryUsage, &s.TotalMemory, &s.AvailableMemory, &s.RunTime, &s.StartTime,
		&s.ReadBytes, &s.WrittenBytes, &s.MessagesSizeBytes} {
		*p = r.U64()
	}
	for _, p := range []*uint32{&s.StreamsCount, &s.TopicsCount, &s.PartitionsCount, &s.SegmentsCount} {
		*p = r.U32()
	}
	s.MessagesCount = r.U64()
	s.ClientsCount = r.U32()
	s.ConsumerGroupsCount = r.U32()
	for _, p := range []*string{&s.Hostname, &s.OSName, &s.OSVersion, &s.KernelVersion, &s.ServerVersion} {
		*p = r.Str32()
	}
	s.ServerSemver = r.U32()
	s.CacheMetrics = readCacheMetrics(r)
	s.ThreadsCount = r.U32()
	s.FreeDiskSpace = r.U64()
	s.TotalDiskSpace = r.U64()
	if r.Err() != OK {
		return Stats{}, InvalidCommand
	}
	return s, OK
}

// readCacheMetrics checks the count against the bytes left before allocating.
func readCacheMetrics(r *Reader) []CacheMetric {
	n := r.U32()
	if r.Err() != OK || uint64(n)*cacheMetricSize > uint64(r.Len()) {
		r.Fail(InvalidCommand)
		return nil
	}
	metrics := make([]CacheMetric, n)
	for i := range metrics {
		metrics[i] = CacheMetric{StreamID: r.U32(), TopicID: r.U32(), PartitionID: r.U32(),
			Hits: r.U64(), Misses: r.U64(), HitRatio: readF32(r)}
	}
	return metrics
}

func readF32(r *Reader) float32 { return math.Float32frombits(r.U32()) }

// Client transports as ClientInfo reports them (7.3).
const (
	ClientTransportTCP       uint8 = 1 // also TCP+TLS
	ClientTransportQUIC      uint8 = 2
	ClientTransportWebSocket uint8 = 4 // also WSS
)

// ClientUserNone is the user id of a connection that has not logged in.
const ClientUserNone uint32 = 0xFFFFFFFF

// ClientInfo is one record of GetClients, and the head of GetClient and GetMe.
type ClientInfo struct {
	ClientID            uint32 // low 32 bits of the connection id (SESS-37)
	UserID              uint32
	Transport           uint8
	Address             string // ip:port
	ConsumerGroupsCount uint32
}

const (
	clientInfoSizeMin = 4 + 4 + 1 + 4 + 4
	clientGroupSize   = 4 + 4 + 4
)

// Encode writes the record.
func (c ClientInfo) Encode(w *Writer) {
	w.U32(c.ClientID)
	w.U32(c.UserID)
	w.U8(c.Transport)
	w.Str32(c.Address)
	w.U32(c.ConsumerGroupsCount)
}

func readClientInfo(r *Reader) ClientInfo {
	return ClientInfo{ClientID: r.U32(), UserID: r.U32(), Transport: r.U8(), Address: r.Str32(),
		ConsumerGroupsCount: r.U32()}
}

// ClientGroup is one group membership of a GetClient or GetMe reply.
type ClientGroup struct{ StreamID, TopicID, GroupID uint32 }

// ClientDetails is the GetClient (21) and GetMe (20) reply: a ClientInfo
// followed by its group memberships. An empty GetClient body means not found.
type ClientDetails struct {
	ClientInfo
	Groups []ClientGroup
}

// Encode writes the record; the count is taken from Groups.
func (d ClientDetails) Encode(w *Writer) {
	info := d.ClientInfo
	info.ConsumerGroupsCount = uint32(len(d.Groups))
	info.Encode(w)
	for _, g := range d.Groups {
		w.U32(g.StreamID)
		w.U32(g.TopicID)
		w.U32(g.GroupID)
	}
}

// DecodeClientDetails reads a non-empty GetClient or GetMe body.
func DecodeClientDetails(body []byte) (ClientDetails, Code) {
	r := NewReader(body)
	d := ClientDetails{ClientInfo: readClientInfo(r)}
	n := d.ConsumerGroupsCount
	if r.Err() != OK || uint64(n)*clientGroupSize > uint64(r.Len()) {
		return ClientDetails{}, InvalidCommand
	}
	d.Groups = make([]ClientGroup, n)
	for i := range d.Groups {
		d.Groups[i] = ClientGroup{StreamID: r.U32(), TopicID: r.U32(), GroupID: r.U32()}
	}
	if r.Err() != OK {
		return ClientDetails{}, InvalidCommand
	}
	return d, OK
}

// EncodeClients writes a GetClients (22) body: records with no count prefix.
func EncodeClients(w *Writer, clients []ClientInfo) {
	for _, c := range clients {
		c.Encode(w)
	}
}

// DecodeClients reads a GetClients body to its end; the loop is bounded
// because every record consumes at least clientInfoSizeMin bytes.
func DecodeClients(body []byte) ([]ClientInfo, Code) {
	r := NewReader(body)
	clients := make([]ClientInfo, 0, len(body)/clientInfoSizeMin)
	for r.Len() > 0 && r.Err() == OK {
		clients = append(clients, readClientInfo(r))
	}
	if r.Err() != OK {
		return nil, InvalidCommand
	}
	return clients, OK
}

// DecodeGetClient reads the GetClient (21) body: the client id to look up.
func DecodeGetClient(body []byte) (uint32, Code) {
	r := NewReader(body)
	id := r.U32()
	if r.Err() != OK {
		return 0, InvalidCommand
	}
	return id, OK
}

// EncodeGetClient writes the GetClient body.
func EncodeGetClient(w *Writer, clientID uint32) { w.U32(clientID) }

// Cluster node roles and statuses (7.4).
const (
	ClusterRoleLeader   uint8 = 0
	ClusterRoleFollower uint8 = 1

	ClusterStatusHealthy     uint8 = 0
	ClusterStatusStarting    uint8 = 1
	ClusterStatusStopping    uint8 = 2
	ClusterStatusUnreachable uint8 = 3
	ClusterStatusMaintenance uint8 = 4
	ClusterStatusUnknown     uint8 = 5

	// ClusterNodesMax is the most nodes the Go SDK accepts in one reply.
	ClusterNodesMax = 64
)

// ClusterMetadata is the GetClusterMetadata (12) reply body (7.4).
type ClusterMetadata struct {
	Name  string
	Nodes []ClusterNode
	// Replicas says the replica trailer follows the node records: per node,
	// in record order, its replica id (u8, VSR-31) and rack (u32 string,
	// empty when unset). Protocol 0.12's record has no replica id, and the
	// official SDKs (Go and Rust) stop reading after the last record, so the
	// trailer reaches our client without changing what they decode. A
	// standalone node sends none (vector 38 stays byte-exact).
	Replicas bool
}

// ClusterNode is one node record: 18 bytes plus its two strings.
type ClusterNode struct {
	Name          string
	Address       string // ip or host advertised to this client
	TCPPort       uint16 // 0: transport disabled
	QUICPort      uint16
	HTTPPort      uint16
	WebSocketPort uint16
	Role          uint8
	Status        uint8
	ReplicaID     uint8  // in the trailer only (ClusterMetadata.Replicas)
	Rack          string // in the trailer only
}

const clusterNodeSizeMin = 4 + 4 + 4*2 + 1 + 1

// Encode writes the body.
func (m ClusterMetadata) Encode(w *Writer) {
	if len(m.Nodes) > ClusterNodesMax {
		assert.Failf("%d cluster nodes", len(m.Nodes))
	}
	w.Str32(m.Name)
	w.U32(uint32(len(m.Nodes)))
	for _, n := range m.Nodes {
		w.Str32(n.Name)
		w.Str32(n.Address)
		w.U16(n.TCPPort)
		w.U16(n.QUICPort)
		w.U16(n.HTTPPort)
		w.U16(n.WebSocketPort)
		w.U8(n.Role)
		w.U8(n.Status)
	}
	if !m.Replicas {
		return
	}
	for _, n := range m.Nodes {
		w.U8(n.ReplicaID)
		w.Str32(n.Rack)
	}
}

// DecodeClusterMetadata reads the body as the Go SDK does: more than
// ClusterNodesMax nodes, a role above Follower or status Unknown is 3.
// A replica trailer is read when one whole trailer follows the records;
// other trailing bytes are ignored, as the SDKs ignore them.
func DecodeClusterMetadata(body []byte) (ClusterMetadata, Code) {
	r := NewReader(body)
	m := ClusterMetadata{Name: r.Str32()}
	n := r.U32()
	if r.Err() != OK || n > ClusterNodesMax || uint64(n)*clusterNodeSizeMin > uint64(r.Len()) {
		return ClusterMetadata{}, InvalidCommand
	}
	m.Nodes = make([]ClusterNode, n)
	for i := range m.Nodes {
		node := ClusterNode{Name: r.Str32(), Address: r.Str32(), TCPPort: r.U16(), QUICPort: r.U16(),
			HTTPPort: r.U16(), WebSocketPort: r.U16(), Role: r.U8(), Status: r.U8()}
		if node.Role > ClusterRoleFollower || node.Status >= ClusterStatusUnknown {
			r.Fail(InvalidCommand)
		}
		m.Nodes[i] = node
	}
	if r.Err() != OK {
		return ClusterMetadata{}, InvalidCommand
	}
	readReplicaTrailer(r, &m)
	return m, OK
}

// readReplicaTrailer fills the nodes' replica ids and racks from a whole
// trailer; anything less leaves m as the records alone said.
func readReplicaTrailer(r *Reader, m *ClusterMetadata) {
	if r.Len() == 0 || len(m.Nodes) == 0 {
		return
	}
	ids := make([]uint8, len(m.Nodes))
	racks := make([]string, len(m.Nodes))
	for i := range m.Nodes {
		ids[i], racks[i] = r.U8(), r.Str32()
	}
	if r.Err() != OK {
		return
	}
	for i := range m.Nodes {
		m.Nodes[i].ReplicaID, m.Nodes[i].Rack = ids[i], racks[i]
	}
	m.Replicas = true
}

// Snapshot archive compressions and content types (7.6).
const (
	SnapshotCompressionStored   uint8 = 1
	SnapshotCompressionDeflated uint8 = 2
	SnapshotCompressionBzip2    uint8 = 3
	SnapshotCompressionZstd     uint8 = 4
	SnapshotCompressionLzma     uint8 = 5
	SnapshotCompressionXz       uint8 = 6

	SnapshotTypeFilesystemOverview uint8 = 1
	SnapshotTypeProcessList        uint8 = 2
	SnapshotTypeResourceUsage      uint8 = 3
	SnapshotTypeTest               uint8 = 4
	SnapshotTypeServerLogs         uint8 = 5
	SnapshotTypeServerConfig       uint8 = 6
	SnapshotTypeAll                uint8 = 100
)

// SnapshotRequest is the GetSnapshotFile (11) body.
type SnapshotRequest struct {
	Compression uint8
	Types       []uint8 // at most 255: the count is one byte
}

// DecodeGetSnapshotFile decodes the body; an unknown compression or type
// code is 3, like a body that does not decode.
func DecodeGetSnapshotFile(body []byte) (SnapshotRequest, Code) {
	r := NewReader(body)
	s := SnapshotRequest{Compression: r.U8()}
	types := r.Bytes(int(r.U8()))
	if r.Err() != OK || s.Compression < SnapshotCompressionStored || s.Compression > SnapshotCompressionXz {
		return SnapshotRequest{}, InvalidCommand
	}
	for _, t := range types {
		if (t < SnapshotTypeFilesystemOverview || t > SnapshotTypeServerConfig) && t != SnapshotTypeAll {
			return SnapshotRequest{}, InvalidCommand
		}
	}
	s.Types = append([]uint8(nil), types...)
	return s, OK
}

// Encode writes the body.
func (s SnapshotRequest) Encode(w *Writer) {
	if len(s.Types) > math.MaxUint8 {
		assert.Failf("%d snapshot types", len(s.Types))
	}
	w.U8(s.Compression)
	w.U8(uint8(len(s.Types)))
	w.Bytes(s.Types)
}
