package node_test

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

// covers SESS-37
// GetMe and GetClients show a client as the low 32 bits of its transport
// connection id, an identity apart from the 128-bit VSR client id.
func TestClientIDIsLowBitsOfConnection(t *testing.T) {
	c := newTestCluster(t, 1, 0)
	c.until("root", func() bool { return c.converged(1) })
	c.lastCID = 1<<32 + 6
	cl := c.client(1)
	cl.connect(0) // connection 1<<32 + 7
	mustOK(t, cl.login())
	code, payload := cl.do(wire.CmdGetMe, nil)
	me, _ := wire.DecodeClientDetails(payload)
	if code != wire.OK || me.ClientID != 7 {
		t.Fatalf("GetMe: %s, client id %d, want 7", code.Name(), me.ClientID)
	}
	code, payload = cl.do(wire.CmdGetClients, nil)
	clients, _ := wire.DecodeClients(payload)
	if code != wire.OK || len(clients) != 1 || clients[0].ClientID != 7 {
		t.Fatalf("GetClients: %s, %+v", code.Name(), clients)
	}
}
