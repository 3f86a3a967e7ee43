package main

import (
	"net/http"
	"slices"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
)

func (h *httpAPI) GetStats() (wire.Stats, error) {
	var s rest.Stats
	_, err := h.do(http.MethodGet, "/stats", nil, nil, &s)
	return wire.Stats{ProcessID: s.ProcessID, CPUUsage: s.CPUUsage, TotalCPUUsage: s.TotalCPUUsage,
		MemoryUsage: sizeOf(s.MemoryUsage), TotalMemory: sizeOf(s.TotalMemory), AvailableMemory: sizeOf(s.AvailableMemory),
		RunTime: s.RunTime, StartTime: s.StartTime, ReadBytes: sizeOf(s.ReadBytes), WrittenBytes: sizeOf(s.WrittenBytes),
		MessagesSizeBytes: sizeOf(s.MessagesSizeBytes), StreamsCount: s.StreamsCount, TopicsCount: s.TopicsCount,
		PartitionsCount: s.PartitionsCount, SegmentsCount: s.SegmentsCount, MessagesCount: s.MessagesCount,
		ClientsCount: s.ClientsCount, ConsumerGroupsCount: s.ConsumerGroupsCount, Hostname: s.Hostname, OSName: s.OSName,
		OSVersion: s.OSVersion, KernelVersion: s.KernelVersion, ServerVersion: s.IggyServerVersion, ThreadsCount: s.ThreadsCount,
		FreeDiskSpace: sizeOf(s.FreeDiskSpace), TotalDiskSpace: sizeOf(s.TotalDiskSpace)}, err
}

// clusterRoleNames and clusterStatusNames are the REST spellings, indexed
// by the binary protocol's codes.
var (
	clusterRoleNames   = []string{wire.ClusterRoleLeader: "leader", wire.ClusterRoleFollower: "follower"}
	clusterStatusNames = []string{"healthy", "starting", "stopping", "unreachable", "maintenance", "unknown"}
)

// codeOf is name's index in names (an unknown name reads as the last).
func codeOf(names []string, name string) uint8 {
	if i := slices.Index(names, name); i >= 0 {
		return uint8(i)
	}
	return uint8(len(names) - 1)
}

func (h *httpAPI) GetClusterMetadata() (wire.ClusterMetadata, error) {
	var m struct {
		Name  string `json:"name"`
		Nodes []struct {
			Name      string `json:"name"`
			IP        string `json:"ip"`
			Endpoints struct {
				TCP       uint16 `json:"tcp"`
				QUIC      uint16 `json:"quic"`
				HTTP      uint16 `json:"http"`
				WebSocket uint16 `json:"websocket"`
			} `json:"endpoints"`
			Role      string `json:"role"`
			Status    string `json:"status"`
			ReplicaID *uint8 `json:"replica_id"`
			Rack      string `json:"rack"`
		} `json:"nodes"`
	}
	_, err := h.do(http.MethodGet, "/cluster/metadata", nil, nil, &m)
	out := wire.ClusterMetadata{Name: m.Name}
	for _, n := range m.Nodes {
		node := wire.ClusterNode{Name: n.Name, Address: n.IP, TCPPort: n.Endpoints.TCP, QUICPort: n.Endpoints.QUIC,
			HTTPPort: n.Endpoints.HTTP, WebSocketPort: n.Endpoints.WebSocket, Role: codeOf(clusterRoleNames, n.Role),
			Status: codeOf(clusterStatusNames, n.Status), Rack: n.Rack}
		if n.ReplicaID != nil {
			node.ReplicaID = *n.ReplicaID
		}
		out.Nodes = append(out.Nodes, node)
	}
	return out, err
}

// optionScopeNames are the REST path segments of the option scopes.
var optionScopeNames = map[wire.OptionScope]string{wire.ScopeStream: "stream", wire.ScopeTopic: "topic", wire.ScopeUser: "user"}

func (h *httpAPI) DescribeOptions(scope wire.OptionScope) ([]wire.OptionDescriptor, error) {
	var specs []struct {
		Key         string `json:"key"`
		Kind        string `json:"kind"`
		Default     []int  `json:"default_value"`
		Description string `json:"description"`
	}
	_, err := h.do(http.MethodGet, "/options/"+optionScopeNames[scope], nil, nil, &specs)
	out := make([]wire.OptionDescriptor, len(specs))
	for i, s := range specs {
		kind, _ := wire.ValueKindNamed(s.Kind)
		def := make([]byte, len(s.Default))
		for j, b := range s.Default {
			def[j] = byte(b)
		}
		out[i] = wire.OptionDescriptor{Key: s.Key, Kind: kind, Default: def, Description: s.Description}
	}
	return out, err
}
