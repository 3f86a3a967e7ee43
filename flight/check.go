package flight

import (
	"fmt"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
)

// checker holds the checks that apply to one node's own inputs and
// outputs (the simulator's oracles need the clients' view, which a dump
// lacks). The core's assertions run in a replay anyway; these add what
// the core does not assert about its outputs:
//   - a reply goes to a connection that is open (opened, not closed, and
//     not already answered with a close);
//   - disk request ids strictly increase, per shard;
//   - a node reports Booted at most once.
type checker struct {
	open    map[bus.ConnID]bool
	lastReq map[uint8]uint64
	booted  map[uint8]bool
}

func newChecker() *checker {
	return &checker{open: map[bus.ConnID]bool{}, lastReq: map[uint8]uint64{}, booted: map[uint8]bool{}}
}

func (c *checker) input(_ uint8, in node.Input) {
	switch m := in.(type) {
	case node.ConnOpened:
		c.open[m.Conn] = true
	case node.ConnClosed:
		delete(c.open, m.Conn)
	}
}

func (c *checker) ready(shard uint8, r *node.Ready) error {
	for _, rep := range r.Replies {
		if !c.open[rep.Conn] {
			return fmt.Errorf("a reply to connection %d, which is not open", rep.Conn)
		}
		if rep.Close {
			delete(c.open, rep.Conn)
		}
	}
	for i := range r.Disk {
		id := uint64(r.Disk[i].ID)
		if id <= c.lastReq[shard] {
			return fmt.Errorf("disk request %d after %d", id, c.lastReq[shard])
		}
		c.lastReq[shard] = id
	}
	if r.Booted {
		if c.booted[shard] {
			return fmt.Errorf("booted twice")
		}
		c.booted[shard] = true
	}
	return nil
}
