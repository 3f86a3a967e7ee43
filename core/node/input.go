package node

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
)

// Input is one input to a Node. The set of kinds is closed: each kind is a
// type of this package (the boundary types of io/ are wrapped by a
// conversion, e.g. node.Tick(t)), and each hands itself to the one
// InputVisitor method of its kind. A new kind therefore adds a method to
// InputVisitor, and every visitor (the node's own stepper, the simulator's
// tracer, the flight recorder) stops compiling until it handles the kind:
// no input can reach a default branch at run time.
type Input interface {
	Visit(v InputVisitor)
	sealed()
}

// InputVisitor handles every kind of Input, one method per kind.
type InputVisitor interface {
	OnTick(clock.Tick)
	OnConnOpened(bus.ConnOpened)
	OnConnClosed(bus.ConnClosed)
	OnClientFrame(bus.ClientFrame)
	OnTrustedRegister(TrustedRegister)
	OnPeer(PeerMessage)
	OnShard(ShardMessage)
	OnCompletion(storage.Completion)
	OnJobResult(compute.Result)
}

// Tick is the clock's tick as an Input.
type Tick clock.Tick

// ConnOpened is a client connection's opening as an Input.
type ConnOpened bus.ConnOpened

// ConnClosed is a client connection's end as an Input.
type ConnClosed bus.ConnClosed

// ClientFrame is one request frame of a client as an Input.
type ClientFrame bus.ClientFrame

// Completion is a disk request's completion as an Input.
type Completion storage.Completion

// JobResult is a compute job's answer as an Input.
type JobResult compute.Result

func (in Tick) Visit(v InputVisitor)            { v.OnTick(clock.Tick(in)) }
func (in ConnOpened) Visit(v InputVisitor)      { v.OnConnOpened(bus.ConnOpened(in)) }
func (in ConnClosed) Visit(v InputVisitor)      { v.OnConnClosed(bus.ConnClosed(in)) }
func (in ClientFrame) Visit(v InputVisitor)     { v.OnClientFrame(bus.ClientFrame(in)) }
func (in TrustedRegister) Visit(v InputVisitor) { v.OnTrustedRegister(in) }
func (in PeerMessage) Visit(v InputVisitor)     { v.OnPeer(in) }
func (in ShardMessage) Visit(v InputVisitor)    { v.OnShard(in) }
func (in Completion) Visit(v InputVisitor)      { v.OnCompletion(storage.Completion(in)) }
func (in JobResult) Visit(v InputVisitor)       { v.OnJobResult(compute.Result(in)) }

func (Tick) sealed()            {}
func (ConnOpened) sealed()      {}
func (ConnClosed) sealed()      {}
func (ClientFrame) sealed()     {}
func (TrustedRegister) sealed() {}
func (PeerMessage) sealed()     {}
func (ShardMessage) sealed()    {}
func (Completion) sealed()      {}
func (JobResult) sealed()       {}

// stepper is the node's own InputVisitor. It is a distinct type so that
// the handlers stay off Node's exported method set: only Step reaches them.
type stepper Node

// Step feeds one input to the node.
func (n *Node) Step(in Input) { in.Visit((*stepper)(n)) }

func (s *stepper) OnTick(t clock.Tick) {
	n := (*Node)(s)
	assert.That(t.Ticks >= n.now.Ticks, "ticks went back")
	n.now = t
	n.onTick()
}

func (s *stepper) OnConnOpened(m bus.ConnOpened)       { (*Node)(s).onConnOpened(m) }
func (s *stepper) OnConnClosed(m bus.ConnClosed)       { (*Node)(s).onConnClosed(m.Conn) }
func (s *stepper) OnClientFrame(m bus.ClientFrame)     { (*Node)(s).onFrame(m.Conn, m.Frame) }
func (s *stepper) OnTrustedRegister(m TrustedRegister) { (*Node)(s).trustedRegister(m) }
func (s *stepper) OnPeer(m PeerMessage)                { (*Node)(s).onPeer(m) }
func (s *stepper) OnShard(m ShardMessage)              { (*Node)(s).onShard(m) }
func (s *stepper) OnCompletion(m storage.Completion)   { (*Node)(s).onCompletion(m) }
func (s *stepper) OnJobResult(m compute.Result)        { (*Node)(s).onJobResult(m) }

var _ InputVisitor = (*stepper)(nil)
