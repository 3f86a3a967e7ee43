package client

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

// countOp is how many requests of op s received.
func countOp(s *fakeServer, op wire.Operation) int {
	n := 0
	for _, r := range s.received() {
		if r.header.Operation == op {
			n++
		}
	}
	return n
}

// A dead node is skipped for the next; a partition request answered 89
// (NotPrimary) is sent again to the node the routes name, and later
// requests go there first.
// covers PLACE-21
func TestClusterFollowsNotPrimaryToTheRoute(t *testing.T) {
	backup := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		switch {
		case h.Operation == wire.OpStoreConsumerOffset:
			return [][]byte{wire.RejectionFrame(wire.ReplyTo(h), wire.NotPrimary)}
		case h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdPartitionRoutes:
			var w wire.Writer
			wire.EncodePartitionRoutes(&w, []wire.PartitionRoute{{PartitionID: 0, Primary: 2, View: 4}})
			return wire.RawFrame(wire.ReplyTo(h), w.Buf)
		}
		return okHandler(h, body)
	})
	primary := newFakeServer(t, okHandler)
	dead := "127.0.0.1:1" // nothing listens on port 1
	k := NewCluster([]string{dead, backup.ln.Addr().String(), primary.ln.Addr().String()}, "iggy", "iggy", Options{})
	defer k.Close()
	stream, topic := wire.NumericID(1), wire.NumericID(2)
	store := func(c *Client) error { return c.StoreOffset(Consumer(1), stream, topic, 0, 9) }
	for i := range 2 {
		if err := k.OnPartition(stream, topic, 0, store); err != nil {
			t.Fatalf("store %d through the routing client: %v", i, err)
		}
	}
	if got := countOp(backup, wire.OpStoreConsumerOffset); got != 1 {
		t.Errorf("the backup saw %d stores, want 1 (the first, answered 89)", got)
	}
	if got := countOp(primary, wire.OpStoreConsumerOffset); got != 2 {
		t.Errorf("the primary saw %d stores, want 2", got)
	}
}

// PrimaryAddr names the address of the node the routes call a partition's
// primary, asked of whichever node answers (a dead one is skipped).
func TestClusterPrimaryAddr(t *testing.T) {
	routes := newFakeServer(t, func(h wire.RequestHeader, body []byte) [][]byte {
		if h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdPartitionRoutes {
			var w wire.Writer
			wire.EncodePartitionRoutes(&w, []wire.PartitionRoute{{PartitionID: 0, Primary: 2, View: 2}, {PartitionID: 1, Primary: 1, View: 4}})
			return wire.RawFrame(wire.ReplyTo(h), w.Buf)
		}
		return okHandler(h, body)
	})
	addrs := []string{"127.0.0.1:1", routes.ln.Addr().String(), "10.9.9.9:9"}
	k := NewCluster(addrs, "iggy", "iggy", Options{})
	defer k.Close()
	for part, want := range map[uint32]string{0: addrs[2], 1: addrs[1]} {
		if got, err := k.PrimaryAddr(wire.NumericID(1), wire.NumericID(1), part); err != nil || got != want {
			t.Fatalf("partition %d: %q %v, want %q", part, got, err, want)
		}
	}
	if _, err := k.PrimaryAddr(wire.NumericID(1), wire.NumericID(1), 7); err == nil {
		t.Fatal("a partition without a route has an address")
	}
}
