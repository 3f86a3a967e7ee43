package server

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/core/node"
)

// A link reader waiting on a full inbox is released when the inbox closes
// (the loop ended), so closing the replica links never hangs on it.
func TestPeerInboxCloseReleasesAWaitingDeliver(t *testing.T) {
	in := NewPeerInbox()
	for range peerInboxCapacity {
		in.Deliver(node.PeerMessage{})
	}
	done := make(chan struct{})
	go func() {
		in.Deliver(node.PeerMessage{}) // the inbox is full: waits
		close(done)
	}()
	in.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Deliver still waits after Close")
	}
	in.Deliver(node.PeerMessage{}) // after Close: dropped at once
}
