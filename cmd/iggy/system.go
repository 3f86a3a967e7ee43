package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/iggygo/iggy/wire"
)

func (a *app) pingCommand() *cobra.Command {
	var count int
	cmd := &cobra.Command{
		Use:     "ping",
		Short:   "Check that the server answers (no login needed)",
		Example: "  iggy ping\n  iggy --transport quic --address 127.0.0.1:8080 ping --count 3",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			c, err := a.dial()
			if err != nil {
				return err
			}
			t := table{headers: []string{"PING", "TIME"}}
			var rtts []float64
			for i := range max(count, 1) {
				start := time.Now()
				if err := c.Ping(); err != nil {
					return err
				}
				rtt := time.Since(start)
				rtts = append(rtts, float64(rtt.Microseconds())/1000)
				t.add(i+1, rtt.Round(time.Microsecond))
			}
			return a.show(map[string]any{"ok": true, "address": a.addr(), "rtt_ms": rtts}, t)
		},
	}
	cmd.Flags().IntVarP(&count, "count", "c", 1, "pings to send")
	return cmd
}

func (a *app) meCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "me",
		Short:   "Show this connection's client details",
		Example: "  iggy -u iggy -p iggy me",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			d, err := c.GetMe()
			if err != nil {
				return err
			}
			v := map[string]any{"client_id": d.ClientID, "user_id": d.UserID, "transport": transportNames[d.Transport],
				"address": d.Address, "consumer_groups_count": d.ConsumerGroupsCount}
			return a.show(v, keyValues("client id", d.ClientID, "user id", d.UserID, "transport", transportNames[d.Transport],
				"address", d.Address, "consumer groups", d.ConsumerGroupsCount))
		},
	}
}

// transportNames are ClientInfo's transport codes.
var transportNames = map[uint8]string{1: "tcp", 2: "quic", 3: "http", 4: "ws"}

func (a *app) statsCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "stats",
		Short:   "Show the server's statistics",
		Example: "  iggy stats\n  iggy --output json stats",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			s, err := c.GetStats()
			if err != nil {
				return err
			}
			v := map[string]any{"server_version": s.ServerVersion, "hostname": s.Hostname, "os_name": s.OSName,
				"os_version": s.OSVersion, "kernel_version": s.KernelVersion, "process_id": s.ProcessID,
				"cpu_usage": s.CPUUsage, "total_cpu_usage": s.TotalCPUUsage, "memory_usage": s.MemoryUsage,
				"total_memory": s.TotalMemory, "available_memory": s.AvailableMemory, "run_time_us": s.RunTime,
				"start_time_us": s.StartTime, "read_bytes": s.ReadBytes, "written_bytes": s.WrittenBytes,
				"messages_size_bytes": s.MessagesSizeBytes, "streams_count": s.StreamsCount, "topics_count": s.TopicsCount,
				"partitions_count": s.PartitionsCount, "segments_count": s.SegmentsCount, "messages_count": s.MessagesCount,
				"clients_count": s.ClientsCount, "consumer_groups_count": s.ConsumerGroupsCount, "threads_count": s.ThreadsCount,
				"free_disk_space": s.FreeDiskSpace, "total_disk_space": s.TotalDiskSpace}
			return a.show(v, keyValues("server version", s.ServerVersion, "hostname", s.Hostname,
				"process id", s.ProcessID, "started", timeText(s.StartTime), "run time", time.Duration(s.RunTime)*time.Microsecond,
				"streams", s.StreamsCount, "topics", s.TopicsCount, "partitions", s.PartitionsCount,
				"segments", s.SegmentsCount, "messages", s.MessagesCount, "messages size bytes", s.MessagesSizeBytes,
				"clients", s.ClientsCount, "consumer groups", s.ConsumerGroupsCount,
				"memory usage", s.MemoryUsage, "free disk space", s.FreeDiskSpace))
		},
	}
}

func (a *app) clusterCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "cluster", Aliases: []string{"cl"}, Short: "Cluster information", Example: "  iggy cluster metadata"}
	cmd.AddCommand(&cobra.Command{
		Use:     "metadata",
		Aliases: []string{"m"},
		Short:   "Show the cluster's name and nodes",
		Example: "  iggy cluster metadata",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			m, err := c.GetClusterMetadata()
			if err != nil {
				return err
			}
			type nodeView struct {
				Name          string `json:"name"`
				Address       string `json:"address"`
				TCPPort       uint16 `json:"tcp_port"`
				QUICPort      uint16 `json:"quic_port"`
				HTTPPort      uint16 `json:"http_port"`
				WebSocketPort uint16 `json:"websocket_port"`
				Role          uint8  `json:"role"`
				Status        uint8  `json:"status"`
				ReplicaID     uint8  `json:"replica_id"`
				Rack          string `json:"rack,omitempty"`
			}
			nodes := []nodeView{}
			t := table{headers: []string{"NAME", "ADDRESS", "TCP", "QUIC", "HTTP", "WS", "ROLE", "STATUS"}}
			for _, n := range m.Nodes {
				t.add(n.Name, n.Address, n.TCPPort, n.QUICPort, n.HTTPPort, n.WebSocketPort, n.Role, n.Status)
				nodes = append(nodes, nodeView(n))
			}
			return a.show(map[string]any{"name": m.Name, "nodes": nodes}, t)
		},
	})
	return cmd
}

// optionScopes are the scopes of `options describe`.
var optionScopes = map[string]wire.OptionScope{"stream": wire.ScopeStream, "topic": wire.ScopeTopic, "user": wire.ScopeUser}

func (a *app) optionsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "options", Short: "Option catalogs of streams, topics and users", Example: "  iggy options describe topic"}
	cmd.AddCommand(&cobra.Command{
		Use:       "describe stream|topic|user",
		Short:     "List the options of a scope with their kinds, defaults and descriptions",
		Example:   "  iggy options describe topic\n  iggy --output json options describe user",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"stream", "topic", "user"},
		RunE: func(_ *cobra.Command, args []string) error {
			scope, ok := optionScopes[args[0]]
			if !ok {
				return usageErrorf("scope %q: want stream, topic or user", args[0])
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ds, err := c.DescribeOptions(scope)
			if err != nil {
				return err
			}
			type optionView struct {
				Key         string `json:"key"`
				Kind        string `json:"kind"`
				Default     string `json:"default"`
				Description string `json:"description"`
			}
			views := []optionView{}
			t := table{headers: []string{"KEY", "KIND", "DEFAULT", "DESCRIPTION"}}
			for _, d := range ds {
				def := ""
				if len(d.Default) > 0 {
					def = wire.OptionText(wire.Option{Key: d.Key, Kind: d.Kind, Value: d.Default})
				}
				views = append(views, optionView{d.Key, d.Kind.Name(), def, d.Description})
				t.add(d.Key, d.Kind.Name(), def, d.Description)
			}
			return a.show(views, t)
		},
	})
	return cmd
}

// snapshotCompressions are the archive compressions `snapshot` offers.
var snapshotCompressions = map[string]uint8{"stored": wire.SnapshotCompressionStored, "deflated": wire.SnapshotCompressionDeflated}

func (a *app) snapshotCommand() *cobra.Command {
	var dir, compression string
	cmd := &cobra.Command{
		Use:     "snapshot",
		Short:   "Fetch the server's diagnostic snapshot and write it as a ZIP file",
		Example: "  iggy snapshot --dir /tmp\n  iggy snapshot --compression stored",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			comp, ok := snapshotCompressions[compression]
			if !ok {
				return usageErrorf("--compression %q: want stored or deflated", compression)
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			zip, err := c.GetSnapshotFile(comp, []uint8{wire.SnapshotTypeAll})
			if err != nil {
				return err
			}
			path := filepath.Join(dir, "snapshot_"+time.Now().UTC().Format("20060102T150405Z")+".zip")
			if err := os.WriteFile(path, zip, 0o600); err != nil {
				return fmt.Errorf("write the snapshot: %w", err)
			}
			return a.done(fmt.Sprintf("snapshot written to %s (%d bytes)", path, len(zip)),
				map[string]any{"path": path, "size_bytes": len(zip)})
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "directory to write the ZIP into")
	cmd.Flags().StringVar(&compression, "compression", "deflated", "archive compression: stored or deflated")
	return cmd
}
