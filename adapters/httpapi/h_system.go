package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/wire"
)

// anonConn is the one sessionless connection /ping uses: a Ping travels to
// the node like any request, so /ping proves the node loop answers.
type anonConn struct {
	hub  *transport.Hub
	mu   sync.Mutex
	conn *nodeConn
}

func (a *anonConn) ping() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn == nil || a.conn.isClosed() {
		c, err := openConn(a.hub, "http-ping")
		if err != nil {
			return err
		}
		a.conn = c
	}
	_, err := a.conn.call(wire.CmdPing, nil, readPolicy)
	return err
}

func (a *anonConn) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != nil {
		a.conn.release()
	}
}

// GET /ping: "pong", public.
func (s *Server) handlePing(w http.ResponseWriter, _ *http.Request) *apiError {
	if err := s.ping.ping(); err != nil {
		return unavailable("The node does not answer.")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("pong"))
	return nil
}

type cacheJSON struct {
	Hits     uint64  `json:"hits"`
	Misses   uint64  `json:"misses"`
	HitRatio float32 `json:"hit_ratio"`
}

// statsJSON is Stats (http.md 4.9); byte sizes are exact-unit strings.
type statsJSON struct {
	ProcessID           uint32               `json:"process_id"`
	CPUUsage            float32              `json:"cpu_usage"`
	TotalCPUUsage       float32              `json:"total_cpu_usage"`
	MemoryUsage         string               `json:"memory_usage"`
	TotalMemory         string               `json:"total_memory"`
	AvailableMemory     string               `json:"available_memory"`
	RunTime             uint64               `json:"run_time"`
	StartTime           uint64               `json:"start_time"`
	ReadBytes           string               `json:"read_bytes"`
	WrittenBytes        string               `json:"written_bytes"`
	MessagesSizeBytes   string               `json:"messages_size_bytes"`
	StreamsCount        uint32               `json:"streams_count"`
	TopicsCount         uint32               `json:"topics_count"`
	PartitionsCount     uint32               `json:"partitions_count"`
	SegmentsCount       uint32               `json:"segments_count"`
	MessagesCount       uint64               `json:"messages_count"`
	ClientsCount        uint32               `json:"clients_count"`
	ConsumerGroupsCount uint32               `json:"consumer_groups_count"`
	Hostname            string               `json:"hostname"`
	OSName              string               `json:"os_name"`
	OSVersion           string               `json:"os_version"`
	KernelVersion       string               `json:"kernel_version"`
	IggyServerVersion   string               `json:"iggy_server_version"`
	IggyServerSemver    *uint32              `json:"iggy_server_semver"`
	CacheMetrics        map[string]cacheJSON `json:"cache_metrics"`
	ThreadsCount        uint32               `json:"threads_count"`
	FreeDiskSpace       string               `json:"free_disk_space"`
	TotalDiskSpace      string               `json:"total_disk_space"`
}

func statsView(st wire.Stats) statsJSON {
	out := statsJSON{ProcessID: st.ProcessID, CPUUsage: st.CPUUsage, TotalCPUUsage: st.TotalCPUUsage,
		MemoryUsage: sizeText(st.MemoryUsage), TotalMemory: sizeText(st.TotalMemory),
		AvailableMemory: sizeText(st.AvailableMemory), RunTime: st.RunTime, StartTime: st.StartTime,
		ReadBytes: sizeText(st.ReadBytes), WrittenBytes: sizeText(st.WrittenBytes),
		MessagesSizeBytes: sizeText(st.MessagesSizeBytes), StreamsCount: st.StreamsCount, TopicsCount: st.TopicsCount,
		PartitionsCount: st.PartitionsCount, SegmentsCount: st.SegmentsCount, MessagesCount: st.MessagesCount,
		ClientsCount: st.ClientsCount, ConsumerGroupsCount: st.ConsumerGroupsCount, Hostname: st.Hostname,
		OSName: st.OSName, OSVersion: st.OSVersion, KernelVersion: st.KernelVersion, IggyServerVersion: st.ServerVersion,
		CacheMetrics: map[string]cacheJSON{}, ThreadsCount: st.ThreadsCount,
		FreeDiskSpace: sizeText(st.FreeDiskSpace), TotalDiskSpace: sizeText(st.TotalDiskSpace)}
	if st.ServerSemver != 0 {
		v := st.ServerSemver
		out.IggyServerSemver = &v
	}
	for _, m := range st.CacheMetrics {
		key := fmt.Sprintf("%d-%d-%d", m.StreamID, m.TopicID, m.PartitionID)
		out.CacheMetrics[key] = cacheJSON{Hits: m.Hits, Misses: m.Misses, HitRatio: m.HitRatio}
	}
	return out
}

// GET /stats
func (s *Server) getStats(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	payload, e := s.call(c, wire.CmdGetStats, nil, readPolicy, readTimeout)
	if e != nil {
		return e
	}
	st, code := wire.DecodeStats(payload)
	if code != wire.OK {
		return badReply("GetStats")
	}
	writeJSON(w, http.StatusOK, statsView(st))
	return nil
}

// transportNames are the ClientInfo transport codes by name.
var transportNames = map[uint8]string{1: "tcp", 2: "quic", 3: "http", 4: "websocket"}

type clientJSON struct {
	ClientID            uint32  `json:"client_id"`
	UserID              *uint32 `json:"user_id"`
	Address             string  `json:"address"`
	Transport           string  `json:"transport"`
	ConsumerGroupsCount uint32  `json:"consumer_groups_count"`
}

type clientGroupJSON struct {
	StreamID uint32 `json:"stream_id"`
	TopicID  uint32 `json:"topic_id"`
	GroupID  uint32 `json:"group_id"`
}

type clientDetailsJSON struct {
	clientJSON
	ConsumerGroups []clientGroupJSON `json:"consumer_groups"`
}

func clientView(ci wire.ClientInfo) clientJSON {
	out := clientJSON{ClientID: ci.ClientID, Address: ci.Address, Transport: transportNames[ci.Transport],
		ConsumerGroupsCount: ci.ConsumerGroupsCount}
	if out.Transport == "" {
		out.Transport = fmt.Sprintf("unknown_%d", ci.Transport)
	}
	if ci.UserID != wire.ClientUserNone {
		u := ci.UserID
		out.UserID = &u
	}
	return out
}

// GET /clients
func (s *Server) getClients(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	payload, e := s.call(c, wire.CmdGetClients, nil, readPolicy, readTimeout)
	if e != nil {
		return e
	}
	clients, code := wire.DecodeClients(payload)
	if code != wire.OK {
		return badReply("GetClients")
	}
	out := make([]clientJSON, 0, len(clients))
	for _, ci := range clients {
		out = append(out, clientView(ci))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GET /clients/{client_id}
func (s *Server) getClient(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := pathU32(r, "client_id")
	if e != nil {
		return e
	}
	payload, e := s.call(c, wire.CmdGetClient, encode(func(w *wire.Writer) { wire.EncodeGetClient(w, id) }), readPolicy, readTimeout)
	if e != nil {
		return e
	}
	if len(payload) == 0 {
		return notFound()
	}
	d, code := wire.DecodeClientDetails(payload)
	if code != wire.OK {
		return badReply("GetClient")
	}
	out := clientDetailsJSON{clientJSON: clientView(d.ClientInfo), ConsumerGroups: make([]clientGroupJSON, 0, len(d.Groups))}
	for _, g := range d.Groups {
		out.ConsumerGroups = append(out.ConsumerGroups, clientGroupJSON(g))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type endpointsJSON struct {
	TCP       uint16 `json:"tcp"`
	QUIC      uint16 `json:"quic"`
	HTTP      uint16 `json:"http"`
	WebSocket uint16 `json:"websocket"`
}

type clusterNodeJSON struct {
	Name      string        `json:"name"`
	IP        string        `json:"ip"`
	Endpoints endpointsJSON `json:"endpoints"`
	Role      string        `json:"role"`
	Status    string        `json:"status"`
}

var (
	roleNames   = []string{wire.ClusterRoleLeader: "leader", wire.ClusterRoleFollower: "follower"}
	statusNames = []string{"healthy", "starting", "stopping", "unreachable", "maintenance", "unknown"}
)

// GET /cluster/metadata
func (s *Server) getCluster(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	payload, e := s.call(c, wire.CmdGetClusterMetadata, nil, readPolicy, readTimeout)
	if e != nil {
		return e
	}
	m, code := wire.DecodeClusterMetadata(payload)
	if code != wire.OK {
		return badReply("GetClusterMetadata")
	}
	out := struct {
		Name  string            `json:"name"`
		Nodes []clusterNodeJSON `json:"nodes"`
	}{Name: m.Name, Nodes: make([]clusterNodeJSON, 0, len(m.Nodes))}
	for _, n := range m.Nodes {
		out.Nodes = append(out.Nodes, clusterNodeJSON{Name: n.Name, IP: n.Address,
			Endpoints: endpointsJSON{TCP: n.TCPPort, QUIC: n.QUICPort, HTTP: n.HTTPPort, WebSocket: n.WebSocketPort},
			Role:      roleNames[n.Role], Status: statusNames[n.Status]})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

var scopes = map[string]wire.OptionScope{"topic": wire.ScopeTopic, "stream": wire.ScopeStream, "user": wire.ScopeUser}

// optionSpecJSON is one catalog entry (RES-2..4): the DescribeOptions fields
// plus the five flags of the scope's catalog.
type optionSpecJSON struct {
	Key          string `json:"key"`
	Kind         string `json:"kind"`
	DefaultValue []int  `json:"default_value"`
	Description  string `json:"description"`
	Updatable    bool   `json:"updatable"`
	Resettable   bool   `json:"resettable"`
	Secret       bool   `json:"secret"`
	ReadOnly     bool   `json:"read_only"`
	Critical     bool   `json:"critical"`
}

// GET /options/{scope}
func (s *Server) getOptions(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	scope, ok := scopes[r.PathValue("scope")]
	if !ok {
		return plainError(http.StatusBadRequest, "Invalid URL: scope must be topic, stream or user")
	}
	body := encode(func(w *wire.Writer) { wire.EncodeDescribeOptionsRequest(w, scope) })
	payload, e := s.call(c, wire.CmdDescribeOptions, body, readPolicy, readTimeout)
	if e != nil {
		return e
	}
	descs, code := wire.DecodeDescribeOptions(payload)
	if code != wire.OK {
		return badReply("DescribeOptions")
	}
	cat, _ := wire.CatalogFor(scope)
	out := make([]optionSpecJSON, 0, len(descs))
	for _, d := range descs {
		j := optionSpecJSON{Key: d.Key, Kind: kindName(d.Kind), DefaultValue: make([]int, len(d.Default)),
			Description: d.Description}
		for i, b := range d.Default {
			j.DefaultValue[i] = int(b)
		}
		if spec, ok := cat.Spec(d.Key); ok {
			j.Updatable, j.Resettable, j.Secret, j.ReadOnly, j.Critical =
				spec.Updatable, spec.Resettable, spec.Secret, spec.ReadOnly, spec.Critical
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

var snapshotCompressions = map[string]uint8{
	"Stored": wire.SnapshotCompressionStored, "Deflated": wire.SnapshotCompressionDeflated,
	"Bzip2": wire.SnapshotCompressionBzip2, "Zstd": wire.SnapshotCompressionZstd,
	"Lzma": wire.SnapshotCompressionLzma, "Xz": wire.SnapshotCompressionXz,
}

var snapshotTypes = map[string]uint8{
	"FilesystemOverview": wire.SnapshotTypeFilesystemOverview, "ProcessList": wire.SnapshotTypeProcessList,
	"ResourceUsage": wire.SnapshotTypeResourceUsage, "Test": wire.SnapshotTypeTest,
	"ServerLogs": wire.SnapshotTypeServerLogs, "ServerConfig": wire.SnapshotTypeServerConfig, "All": wire.SnapshotTypeAll,
}

// snapshotTypesMax bounds the type list (its count is one byte).
const snapshotTypesMax = 255

// snapshotPolicy: the archive runs host commands, so it may take longer than a read.
var snapshotPolicy = callPolicy{timeout: 60 * time.Second, budget: 10 * time.Second}

// POST /snapshot: GetSnapshotFile (11), answered with the ZIP the node
// returns. The node decides the permission (manage_servers, AUTH-1).
func (s *Server) snapshot(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	req := wire.SnapshotRequest{Compression: wire.SnapshotCompressionDeflated, Types: []uint8{wire.SnapshotTypeAll}}
	if name, ok, e := o.str("compression", false); e != nil {
		return e
	} else if ok {
		if req.Compression, ok = snapshotCompressions[name]; !ok {
			return shapeError("compression", "unknown compression")
		}
	}
	if o.present("snapshot_types") {
		var names []string
		if err := json.Unmarshal(o["snapshot_types"], &names); err != nil || len(names) > snapshotTypesMax {
			return shapeError("snapshot_types", "expected an array of snapshot types")
		}
		req.Types = req.Types[:0]
		for _, n := range names {
			t, ok := snapshotTypes[n]
			if !ok {
				return shapeError("snapshot_types", "unknown snapshot type")
			}
			req.Types = append(req.Types, t)
		}
	}
	payload, e := s.call(c, wire.CmdGetSnapshotFile, encode(req.Encode), snapshotPolicy, readTimeout)
	if e != nil {
		return e
	}
	name := "iggy_snapshot_" + time.Now().Format("20060102_150405") + ".zip"
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(payload)
	return nil
}
