package httpapi

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
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

func statsView(st wire.Stats) rest.Stats {
	out := rest.Stats{ProcessID: st.ProcessID, CPUUsage: st.CPUUsage, TotalCPUUsage: st.TotalCPUUsage,
		MemoryUsage: sizeText(st.MemoryUsage), TotalMemory: sizeText(st.TotalMemory),
		AvailableMemory: sizeText(st.AvailableMemory), RunTime: st.RunTime, StartTime: st.StartTime,
		ReadBytes: sizeText(st.ReadBytes), WrittenBytes: sizeText(st.WrittenBytes),
		MessagesSizeBytes: sizeText(st.MessagesSizeBytes), StreamsCount: st.StreamsCount, TopicsCount: st.TopicsCount,
		PartitionsCount: st.PartitionsCount, SegmentsCount: st.SegmentsCount, MessagesCount: st.MessagesCount,
		ClientsCount: st.ClientsCount, ConsumerGroupsCount: st.ConsumerGroupsCount, Hostname: st.Hostname,
		OSName: st.OSName, OSVersion: st.OSVersion, KernelVersion: st.KernelVersion, IggyServerVersion: st.ServerVersion,
		CacheMetrics: map[string]rest.CacheMetric{}, ThreadsCount: st.ThreadsCount,
		FreeDiskSpace: sizeText(st.FreeDiskSpace), TotalDiskSpace: sizeText(st.TotalDiskSpace)}
	if st.ServerSemver != 0 {
		v := st.ServerSemver
		out.IggyServerSemver = &v
	}
	for _, m := range st.CacheMetrics {
		key := fmt.Sprintf("%d-%d-%d", m.StreamID, m.TopicID, m.PartitionID)
		out.CacheMetrics[key] = rest.CacheMetric{Hits: m.Hits, Misses: m.Misses, HitRatio: m.HitRatio}
	}
	return out
}

// GET /stats
func (s *Server) getStats(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	st, e := fetch(s, c, reading, wire.CmdGetStats, nil, wire.DecodeStats)
	if e != nil {
		return e
	}
	return okJSON(w, statsView(st))
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

func clientDetailsView(d wire.ClientDetails) clientDetailsJSON {
	groups := list(d.Groups, func(g wire.ClientGroup) clientGroupJSON { return clientGroupJSON(g) })
	return clientDetailsJSON{clientJSON: clientView(d.ClientInfo), ConsumerGroups: groups}
}

// GET /clients
func (s *Server) getClients(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	return readList(s, c, w, wire.CmdGetClients, nil, wire.DecodeClients, clientView)
}

// GET /clients/{client_id}
func (s *Server) getClient(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := pathU32(r, "client_id")
	if e != nil {
		return e
	}
	body := encode(func(w *wire.Writer) { wire.EncodeGetClient(w, id) })
	return readOne(s, c, w, wire.CmdGetClient, body, emptyIsAbsent(wire.DecodeClientDetails), clientDetailsView)
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
	// ReplicaID and Rack: a replica set's nodes only (VSR-31).
	ReplicaID *uint8 `json:"replica_id,omitempty"`
	Rack      string `json:"rack,omitempty"`
}

var (
	roleNames   = []string{wire.ClusterRoleLeader: "leader", wire.ClusterRoleFollower: "follower"}
	statusNames = []string{"healthy", "starting", "stopping", "unreachable", "maintenance", "unknown"}
)

func clusterNodeView(n wire.ClusterNode) clusterNodeJSON {
	return clusterNodeJSON{Name: n.Name, IP: n.Address,
		Endpoints: endpointsJSON{TCP: n.TCPPort, QUIC: n.QUICPort, HTTP: n.HTTPPort, WebSocket: n.WebSocketPort},
		Role:      roleNames[n.Role], Status: statusNames[n.Status]}
}

// GET /cluster/metadata
func (s *Server) getCluster(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	m, e := fetch(s, c, reading, wire.CmdGetClusterMetadata, nil, wire.DecodeClusterMetadata)
	if e != nil {
		return e
	}
	return okJSON(w, struct {
		Name  string            `json:"name"`
		Nodes []clusterNodeJSON `json:"nodes"`
	}{Name: m.Name, Nodes: list(m.Nodes, func(n wire.ClusterNode) clusterNodeJSON {
		v := clusterNodeView(n)
		if m.Replicas {
			v.ReplicaID, v.Rack = &n.ReplicaID, n.Rack
		}
		return v
	})})
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

// optionSpecView is one description with its catalog flags.
func optionSpecView(cat *wire.Catalog, d wire.OptionDescriptor) optionSpecJSON {
	j := optionSpecJSON{Key: d.Key, Kind: kindName(d.Kind), DefaultValue: make([]int, len(d.Default)),
		Description: d.Description}
	for i, b := range d.Default {
		j.DefaultValue[i] = int(b)
	}
	if spec, ok := cat.Spec(d.Key); ok {
		j.Updatable, j.Resettable, j.Secret, j.ReadOnly, j.Critical =
			spec.Updatable, spec.Resettable, spec.Secret, spec.ReadOnly, spec.Critical
	}
	return j
}

// GET /options/{scope}
func (s *Server) getOptions(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	scope, ok := scopes[r.PathValue("scope")]
	if !ok {
		return plainError(http.StatusBadRequest, "Invalid URL: scope must be topic, stream or user")
	}
	body := encode(func(w *wire.Writer) { wire.EncodeDescribeOptionsRequest(w, scope) })
	descs, e := fetch(s, c, reading, wire.CmdDescribeOptions, body, wire.DecodeDescribeOptions)
	if e != nil {
		return e
	}
	cat, _ := wire.CatalogFor(scope)
	return okJSON(w, list(descs, func(d wire.OptionDescriptor) optionSpecJSON { return optionSpecView(cat, d) }))
}
