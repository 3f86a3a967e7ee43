package flight

import (
	"fmt"
	"io"
	"strings"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// describer renders one input as a line for -print.
type describer struct{ s string }

func describeInput(in node.Input) string {
	var d describer
	in.Visit(&d)
	return d.s
}

func (d *describer) OnTick(t clock.Tick) {
	d.s = fmt.Sprintf("tick %d at %d µs", t.Ticks, t.NowMicros)
}
func (d *describer) OnConnOpened(m bus.ConnOpened) {
	d.s = fmt.Sprintf("open conn %d transport %d from %s", m.Conn, m.Transport, m.Addr)
}
func (d *describer) OnConnClosed(m bus.ConnClosed) { d.s = fmt.Sprintf("close conn %d", m.Conn) }
func (d *describer) OnClientFrame(m bus.ClientFrame) {
	h, _ := wire.DecodeRequestHeader(m.Frame)
	d.s = fmt.Sprintf("frame conn %d: %s request %d session %d, %d bytes", m.Conn, h.Operation.Name(), h.Request, h.Session, len(m.Frame))
	if h.Operation == wire.OpNonReplicated {
		d.s += fmt.Sprintf(" (command %d)", h.NRCode)
	}
}
func (d *describer) OnTrustedRegister(m node.TrustedRegister) {
	d.s = fmt.Sprintf("trusted register conn %d user %v", m.Conn, m.User)
}
func (d *describer) OnPeer(m node.PeerMessage) {
	d.s = fmt.Sprintf("peer %s from %d view %d op %d commit %d", m.Msg.Command, m.Msg.From, m.Msg.View, m.Msg.Op, m.Msg.Commit)
}
func (d *describer) OnShard(m node.ShardMessage) { d.s = fmt.Sprintf("hand-off from shard %d", m.From) }
func (d *describer) OnCompletion(c storage.Completion) {
	d.s = fmt.Sprintf("disk done %d: result %d, %d bytes, %d entries %s", c.ID, c.Result, len(c.Data), len(c.Entries), c.Err)
}
func (d *describer) OnJobResult(r compute.Result) {
	d.s = fmt.Sprintf("job %d done: code %d, %d bytes", r.ID, r.Code, len(r.Data))
}

// printReady writes a Ready's outputs, one line each.
func printReady(w io.Writer, shard uint8, r *node.Ready) {
	fmt.Fprintf(w, "  take shard %d:\n", shard)
	for _, rep := range r.Replies {
		n := 0
		for _, p := range rep.Parts {
			n += len(p)
		}
		status := ""
		if len(rep.Parts) > 0 && len(rep.Parts[0]) >= wire.HeaderSize {
			if h, err := wire.DecodeReplyHeader(rep.Parts[0]); err == wire.OK {
				status = fmt.Sprintf(" %s status %d", h.Operation.Name(), h.Status)
			}
		}
		fmt.Fprintf(w, "    reply conn %d: %d bytes%s close=%v\n", rep.Conn, n, status, rep.Close)
	}
	for i := range r.Disk {
		q := &r.Disk[i]
		fmt.Fprintf(w, "    disk %d: op %d %s offset %d len %d write %d bytes\n", q.ID, q.Op, q.File, q.Offset, q.Len, q.Size())
	}
	for i := range r.Compute {
		fmt.Fprintf(w, "    job %d: kind %d\n", r.Compute[i].ID, r.Compute[i].Kind)
	}
	for i := range r.Peers {
		fmt.Fprintf(w, "    peer %s to %d op %d\n", r.Peers[i].Msg.Command, r.Peers[i].Msg.To, r.Peers[i].Msg.Op)
	}
	for _, m := range r.Shards {
		fmt.Fprintf(w, "    hand-off to shard %d\n", m.To)
	}
	for _, l := range r.Logs {
		fmt.Fprintf(w, "    log: %s\n", strings.TrimSpace(l))
	}
	if r.Booted {
		fmt.Fprintf(w, "    booted\n")
	}
	if r.Fatal != "" {
		fmt.Fprintf(w, "    FATAL: %s\n", r.Fatal)
	}
}
