package wire

import (
	"bytes"
	"reflect"
	"testing"
)

func vectorStats() Stats {
	return Stats{ProcessID: 1234, CPUUsage: 25.5, TotalCPUUsage: 50.0, MemoryUsage: 1073741824,
		TotalMemory: 8589934592, AvailableMemory: 4294967296, RunTime: 3600, StartTime: 1710000000000,
		ReadBytes: 1000000, WrittenBytes: 500000, MessagesSizeBytes: 2000000, StreamsCount: 3, TopicsCount: 10,
		PartitionsCount: 30, SegmentsCount: 90, MessagesCount: 50000, ClientsCount: 5, ConsumerGroupsCount: 2,
		Hostname: "node-1", OSName: "Linux", OSVersion: "6.1", KernelVersion: "6.1.0", ServerVersion: "0.6.0",
		ServerSemver: 600, CacheMetrics: []CacheMetric{}, ThreadsCount: 16, FreeDiskSpace: 107374182400,
		TotalDiskSpace: 512110190592}
}

// covers TRAN-1
func TestStatsVectors(t *testing.T) {
	plain := vectorStats()
	cached := vectorStats()
	cached.CacheMetrics = []CacheMetric{
		{StreamID: 1, TopicID: 1, PartitionID: 0, Hits: 1000, Misses: 50, HitRatio: 0.95238095},
		{StreamID: 2, TopicID: 3, PartitionID: 1, Hits: 0, Misses: 100, HitRatio: 0},
	}
	for _, tt := range []struct {
		file string
		want Stats
	}{
		{"36-get-stats-reply-body.hex", plain},
		{"37-get-stats-reply-body-cache-metrics.hex", cached},
	} {
		body := framingVector(t, tt.file)
		if string(body[108+4:108+4+6]) != "node-1" {
			t.Fatalf("%s: strings must start at 108", tt.file)
		}
		got, code := DecodeStats(body)
		if code != OK || !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("%s: %+v %v", tt.file, got, code)
		}
		var w Writer
		got.Encode(&w)
		if !bytes.Equal(w.Buf, body) {
			t.Fatalf("%s: re-encoded\n%x\n%x", tt.file, w.Buf, body)
		}
	}
	body := framingVector(t, "36-get-stats-reply-body.hex")
	huge := bytes.Clone(body)
	// cache_metrics_count sits after semver, 24 bytes before the end.
	huge[len(huge)-24], huge[len(huge)-23] = 0xff, 0xff
	for _, bad := range [][]byte{body[:107], body[:len(body)-1], huge} {
		if _, code := DecodeStats(bad); code != InvalidCommand {
			t.Errorf("%d bytes: %v", len(bad), code)
		}
	}
}

// covers TRAN-1
func TestClusterMetadataVectors(t *testing.T) {
	frame := framingVector(t, "38-cluster-metadata-reply-frame-single.hex")
	h, code := DecodeReplyHeader(frame)
	if code != OK || h.Operation != OpNonReplicated || h.Request != 1 {
		t.Fatalf("%+v %v", h, code)
	}
	single := ClusterMetadata{Name: "test-cluster", Nodes: []ClusterNode{
		{Name: "127.0.0.1", Address: "127.0.0.1", TCPPort: 8090}}}
	two := ClusterMetadata{Name: "test-cluster", Nodes: []ClusterNode{
		{Name: "10.0.0.1", Address: "10.0.0.1", TCPPort: 8090, Role: ClusterRoleLeader},
		{Name: "10.0.0.2", Address: "10.0.0.2", TCPPort: 8090, Role: ClusterRoleFollower}}}
	for _, tt := range []struct {
		body []byte
		want ClusterMetadata
	}{
		{frame[HeaderSize:], single},
		{framingVector(t, "39-cluster-metadata-reply-body-two.hex"), two},
	} {
		got, code := DecodeClusterMetadata(tt.body)
		if code != OK || !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("%+v %v", got, code)
		}
		var w Writer
		got.Encode(&w)
		if !bytes.Equal(w.Buf, tt.body) {
			t.Fatalf("re-encoded\n%x\n%x", w.Buf, tt.body)
		}
	}
	// The whole reply frame re-encodes from the SDK fixture's fields.
	var w Writer
	single.Encode(&w)
	if again := joinParts(RawFrame(ReplyHeader{Request: 1, Operation: OpNonReplicated}, w.Buf)); !bytes.Equal(again, frame) {
		t.Fatalf("frame\n%x\n%x", again, frame)
	}
	badStatus := ClusterMetadata{Name: "c", Nodes: []ClusterNode{{Name: "n", Address: "a", Status: ClusterStatusUnknown}}}
	badRole := ClusterMetadata{Name: "c", Nodes: []ClusterNode{{Name: "n", Address: "a", Role: 2}}}
	for _, m := range []ClusterMetadata{badStatus, badRole} {
		var w Writer
		m.Encode(&w)
		if _, code := DecodeClusterMetadata(w.Buf); code != InvalidCommand {
			t.Errorf("%+v accepted", m)
		}
	}
	tooMany := []byte{1, 0, 0, 0, 'c', ClusterNodesMax + 1, 0, 0, 0}
	tooMany = append(tooMany, make([]byte, 18*(ClusterNodesMax+1))...)
	if _, code := DecodeClusterMetadata(tooMany); code != InvalidCommand {
		t.Error("more than 64 nodes accepted")
	}
}

// covers TRAN-1
func TestClientRecords(t *testing.T) {
	body := framingVector(t, "40-get-client-request-body.hex")
	id, code := DecodeGetClient(body)
	if code != OK || id != 1 {
		t.Fatalf("%d %v", id, code)
	}
	var w Writer
	EncodeGetClient(&w, id)
	if !bytes.Equal(w.Buf, body) {
		t.Fatal("GetClient body")
	}
	if _, code := DecodeGetClient(body[:3]); code != InvalidCommand {
		t.Fatal("short GetClient body accepted")
	}

	me := ClientDetails{ClientInfo: ClientInfo{ClientID: 0x01020304, UserID: 0, Transport: ClientTransportTCP,
		Address: "127.0.0.1:50000", ConsumerGroupsCount: 2},
		Groups: []ClientGroup{{StreamID: 1, TopicID: 2, GroupID: 3}, {StreamID: 4, TopicID: 5, GroupID: 6}}}
	w = Writer{}
	me.Encode(&w)
	if len(w.Buf) != 17+len(me.Address)+2*12 {
		t.Fatalf("%d bytes", len(w.Buf))
	}
	got, code := DecodeClientDetails(w.Buf)
	if code != OK || !reflect.DeepEqual(got, me) {
		t.Fatalf("%+v %v", got, code)
	}
	if _, code := DecodeClientDetails(w.Buf[:len(w.Buf)-1]); code != InvalidCommand {
		t.Fatal("truncated groups accepted")
	}

	list := []ClientInfo{me.ClientInfo, {ClientID: 9, UserID: ClientUserNone, Transport: ClientTransportWebSocket,
		Address: "[::1]:1"}}
	w = Writer{}
	EncodeClients(&w, list)
	gotList, code := DecodeClients(w.Buf)
	if code != OK || !reflect.DeepEqual(gotList, list) {
		t.Fatalf("%+v %v", gotList, code)
	}
	if _, code := DecodeClients(w.Buf[:len(w.Buf)-2]); code != InvalidCommand {
		t.Fatal("partial record accepted")
	}
}

// covers TRAN-1
func TestSnapshotRequest(t *testing.T) {
	body := framingVector(t, "41-get-snapshot-request-body.hex")
	got, code := DecodeGetSnapshotFile(body)
	want := SnapshotRequest{Compression: SnapshotCompressionStored, Types: []uint8{SnapshotTypeFilesystemOverview}}
	if code != OK || !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v %v", got, code)
	}
	var w Writer
	got.Encode(&w)
	if !bytes.Equal(w.Buf, body) {
		t.Fatal("re-encoded differs")
	}
	all, code := DecodeGetSnapshotFile([]byte{6, 2, 6, 100})
	if code != OK || len(all.Types) != 2 {
		t.Fatalf("%+v %v", all, code)
	}
	for _, bad := range [][]byte{nil, {1}, {0, 1, 1}, {7, 1, 1}, {1, 1, 0}, {1, 1, 7}, {1, 1, 99}, {1, 2, 1}} {
		if _, code := DecodeGetSnapshotFile(bad); code != InvalidCommand {
			t.Errorf("%x: %v", bad, code)
		}
	}
}

// covers TRAN-1
func FuzzDecodeGetClient(f *testing.F) {
	addFramingSeeds(f, "40-get-client-request-body.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeGetClient, EncodeGetClient, b)
		framingRoundTrip(t, DecodeClientDetails, func(w *Writer, v ClientDetails) { v.Encode(w) }, b)
		framingRoundTrip(t, DecodeClients, EncodeClients, b)
	})
}

// covers TRAN-1
func FuzzDecodeGetSnapshotFile(f *testing.F) {
	addFramingSeeds(f, "41-get-snapshot-request-body.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeGetSnapshotFile, func(w *Writer, v SnapshotRequest) { v.Encode(w) }, b)
	})
}

// covers TRAN-1
func FuzzDecodeStats(f *testing.F) {
	addFramingSeeds(f, "36-get-stats-reply-body.hex", "37-get-stats-reply-body-cache-metrics.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeStats, func(w *Writer, v Stats) { v.Encode(w) }, b)
	})
}

// covers TRAN-1
func FuzzDecodeClusterMetadata(f *testing.F) {
	addFramingSeeds(f, "39-cluster-metadata-reply-body-two.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeClusterMetadata, func(w *Writer, v ClusterMetadata) { v.Encode(w) }, b)
	})
}

// A replica set's reply carries every node's replica id (and rack) in a
// trailer after the 0.12 records: the records decode as before, and the
// bytes an official SDK reads are the same with and without it.
// covers VSR-31
func TestClusterMetadataReplicaTrailer(t *testing.T) {
	m := ClusterMetadata{Name: "c", Replicas: true, Nodes: []ClusterNode{
		{Name: "a", Address: "10.0.0.1", TCPPort: 8090, Role: ClusterRoleFollower, ReplicaID: 2, Rack: "r1"},
		{Name: "b", Address: "10.0.0.2", TCPPort: 8091, Role: ClusterRoleLeader, ReplicaID: 0},
	}}
	var with, without Writer
	m.Encode(&with)
	plain := m
	plain.Replicas = false
	plain.Encode(&without)
	if !bytes.HasPrefix(with.Buf, without.Buf) || len(with.Buf) != len(without.Buf)+2*(1+4)+len("r1") {
		t.Fatalf("trailer is not appended after the records:\n%x\n%x", with.Buf, without.Buf)
	}
	got, code := DecodeClusterMetadata(with.Buf)
	if code != OK || !reflect.DeepEqual(got, m) {
		t.Fatalf("%+v %v", got, code)
	}
	// A cut trailer is ignored, as an SDK ignores the whole of it.
	got, code = DecodeClusterMetadata(with.Buf[:len(with.Buf)-1])
	if code != OK || got.Replicas || got.Nodes[0].ReplicaID != 0 || got.Nodes[1].Name != "b" {
		t.Fatalf("cut trailer: %+v %v", got, code)
	}
}
