package node_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/compute"
	simdisk "github.com/iggygo/iggy/sim/disk"
	"github.com/iggygo/iggy/wire"
)

// clusterRoundsMax bounds how long a cluster test waits for one outcome.
const clusterRoundsMax = 20_000

// replicaHost is one replica of a test cluster: its node (nil while down)
// and its own disk, which outlives the process.
type replicaHost struct {
	n       *node.Node
	disk    *simdisk.Disk
	jobs    []compute.Request
	replies map[bus.ConnID][][]byte
	logs    []string
}

// testCluster steps N nodes in lock step, delivering peer messages at the
// next round unless the link is cut. It is the node's own check of
// replication; the simulator (package sim) runs it under seeded faults.
type testCluster struct {
	t       *testing.T
	rng     *rand.Rand
	hosts   []*replicaHost
	ticks   uint64
	inbox   []node.PeerMessage
	cut     [][]bool // cut[from][to]
	marks   mark.Counts
	every   uint64 // checkpoint spacing
	lastCID bus.ConnID
	// repairBytes is Config.RepairMemoryBytesMax (0: the default).
	repairBytes uint64
	// heartbeat is Config.HeartbeatIntervalTicks (0: sessions never expire).
	heartbeat uint64
	// drop, when set, loses the peer messages it matches.
	drop func(node.PeerMessage) bool
	// roster, when set, is every replica's Config.Roster.
	roster []node.RosterNode
	// vsr is every replica's Config.VSR (zero: the core's defaults).
	vsr vsr.Timeouts
	// fatals, when set, takes a replica's fatal error (the replica stops)
	// instead of failing the test: for tests of refusals at boot.
	fatals map[int]string
	// encryption, when set, gives replica i its server keys.
	encryption map[int]node.Encryption
	// dedup is every replica's Config.DedupClientsMax (0: the default).
	dedup uint32
}

func newTestCluster(t *testing.T, count int, checkpointEvery uint64) *testCluster {
	return newBudgetedCluster(t, count, checkpointEvery, 0)
}

// newBudgetedCluster is newTestCluster with a repair memory budget.
func newBudgetedCluster(t *testing.T, count int, checkpointEvery, repairBytes uint64) *testCluster {
	return newClusterOf(&testCluster{t: t, every: checkpointEvery, repairBytes: repairBytes}, count)
}

// newClusterOf starts count replicas configured as c says.
func newClusterOf(c *testCluster, count int) *testCluster {
	c.rng, c.marks = rand.New(rand.NewPCG(uint64(count), 7)), mark.Counts{}
	c.cut = make([][]bool, count)
	for i := range count {
		c.cut[i] = make([]bool, count)
		c.hosts = append(c.hosts, &replicaHost{disk: simdisk.New(simdisk.Options{Seed: uint64(i) + 1})})
	}
	for i := range count {
		c.start(i)
	}
	return c
}

func (c *testCluster) start(i int) {
	h := c.hosts[i]
	cfg := node.Config{
		ServerVersion: serverVersion, SegmentSizeBytes: segmentSizeBytes,
		Replica: uint8(i), Replicas: uint8(len(c.hosts)), Marks: c.marks,
		CheckpointEveryOps: c.every, PartitionCheckpointEveryOps: c.every, ReplicaWindowOps: int(c.every),
		RepairMemoryBytesMax: c.repairBytes, Root: rootCredentials("iggy", "iggy"),
		HeartbeatIntervalTicks: c.heartbeat, Roster: c.roster, VSR: c.vsr,
		Encryption: c.encryption[i], DedupClientsMax: c.dedup,
	}
	h.n = node.New(cfg, simCrypto{rng: rand.New(rand.NewPCG(uint64(i), 1))})
	h.replies = map[bus.ConnID][][]byte{}
	h.n.Step(c.now())
	h.n.Boot()
}

// stop kills replica i's process; with crash its unsynced writes are lost too.
func (c *testCluster) stop(i int, crash bool) {
	h := c.hosts[i]
	h.n, h.jobs = nil, nil
	if crash {
		h.disk.CrashKeeping(func(string, uint64) uint64 { return 0 })
	} else {
		h.disk.Kill()
	}
}

func (c *testCluster) now() node.Tick {
	return node.Tick{Ticks: c.ticks, NowMicros: startMicros + c.ticks*microsPerTick}
}

// isolate cuts (or heals) every link of replica i.
func (c *testCluster) isolate(i int, cut bool) {
	for j := range c.hosts {
		c.cut[i][j], c.cut[j][i] = cut, cut
	}
}

// round is one tick of the world: deliver last round's peer messages, run
// the disks and jobs, tick every node, collect their output.
func (c *testCluster) round() {
	c.ticks++
	inbox := c.inbox
	c.inbox = nil
	for _, m := range inbox {
		if h := c.hosts[m.Msg.To]; h.n != nil && !c.cut[m.Msg.From][m.Msg.To] && (c.drop == nil || !c.drop(m)) {
			h.n.Step(m)
		}
	}
	for i, h := range c.hosts {
		if h.n == nil {
			continue
		}
		for _, j := range h.jobs {
			h.n.Step(node.JobResult(runJob(j)))
		}
		h.jobs = nil
		for _, comp := range h.disk.Drain() {
			h.n.Step(node.Completion(comp))
		}
		h.n.Step(c.now())
		c.take(i)
	}
}

func (c *testCluster) take(i int) {
	h := c.hosts[i]
	r := h.n.TakeReady()
	if r.Fatal != "" && c.fatals != nil {
		c.fatals[i], h.n, h.jobs = r.Fatal, nil, nil
		return
	}
	if r.Fatal != "" {
		c.t.Fatalf("replica %d: fatal: %s", i, r.Fatal)
	}
	h.disk.Submit(r.Disk...)
	h.logs = append(h.logs, r.Logs...)
	h.jobs = append(h.jobs, r.Compute...)
	c.inbox = append(c.inbox, r.Peers...)
	for _, rep := range r.Replies {
		h.replies[rep.Conn] = append(h.replies[rep.Conn], bytes.Join(rep.Parts, nil))
	}
}

// until runs rounds until cond holds.
func (c *testCluster) until(what string, cond func() bool) {
	c.t.Helper()
	for range clusterRoundsMax {
		if cond() {
			return
		}
		c.round()
	}
	c.t.Fatalf("no %s after %d rounds: %s", what, clusterRoundsMax, c.describe())
}

func (c *testCluster) describe() string {
	var b bytes.Buffer
	for i, h := range c.hosts {
		if h.n == nil {
			b.WriteString(" down")
			continue
		}
		for _, g := range h.n.Groups() {
			b.WriteString(" ")
			b.WriteString(itoa(i) + ":" + g.Status.String() + "/v" + itoa(int(g.View)) + "/op" + itoa(int(g.Op)) +
				"/c" + itoa(int(g.Commit)) + "/a" + itoa(int(g.Applied)))
		}
	}
	return b.String()
}

func itoa(v int) string { return strconv.Itoa(v) }

// primary returns the replica leading the metadata group, or -1.
func (c *testCluster) primary() int {
	for i, h := range c.hosts {
		if h.n != nil && len(h.n.Groups()) > 0 && h.n.Groups()[0].Primary {
			return i
		}
	}
	return -1
}

// converged reports every live replica applied op at least and agrees on
// the applied state.
func (c *testCluster) converged(op uint64) bool {
	var digest uint64
	var applied uint64
	for _, h := range c.hosts {
		if h.n == nil {
			continue
		}
		g := h.n.Groups()
		if len(g) == 0 || g[0].Applied < op {
			return false
		}
		d := h.n.MetadataDigest()
		if digest != 0 && (d != digest || g[0].Applied != applied) {
			return false
		}
		digest, applied = d, g[0].Applied
	}
	return true
}

// cclient is a test client bound to one replica at a time.
type cclient struct {
	c       *testCluster
	id      wire.U128
	host    int
	conn    bus.ConnID
	request uint64
	session uint64
}

func (c *testCluster) client(id uint64) *cclient {
	return &cclient{c: c, id: wire.U128{Lo: id, Hi: 99}, request: 1}
}

func (cl *cclient) connect(host int) {
	cl.c.lastCID++
	cl.host, cl.conn = host, cl.c.lastCID
	cl.c.hosts[host].n.Step(node.ConnOpened{Conn: cl.conn})
}

// call sends one frame and runs the cluster until its reply arrives.
func (cl *cclient) call(h wire.RequestHeader, body []byte) []byte {
	cl.c.t.Helper()
	cl.c.hosts[cl.host].n.Step(node.ClientFrame{Conn: cl.conn, Frame: buildFrame(h, body)})
	return cl.reply()
}

// submit sends command code with body and returns at once: several
// clients' requests can then be in flight together.
func (cl *cclient) submit(code wire.Command, body []byte) {
	h := cl.next()
	h.Operation = wire.OperationForCommand(code)
	h.NRCode = code
	cl.c.hosts[cl.host].n.Step(node.ClientFrame{Conn: cl.conn, Frame: buildFrame(h, body)})
}

// reply runs the cluster until the client's next reply arrives.
func (cl *cclient) reply() []byte {
	cl.c.t.Helper()
	host := cl.c.hosts[cl.host]
	var got []byte
	cl.c.until("reply", func() bool {
		if q := host.replies[cl.conn]; len(q) > 0 {
			got, host.replies[cl.conn] = q[0], q[1:]
			return true
		}
		return false
	})
	return got
}

func (cl *cclient) login() wire.Code {
	body := wire.Writer{}
	wire.LoginPrefix{Version: wire.ProtocolVersionCurrent, SDKName: "t", SDKVersion: "0"}.Encode(&body)
	wire.LoginPassword{Username: "iggy", Password: "iggy"}.Encode(&body)
	frame := cl.call(wire.RequestHeader{Client: cl.id, Operation: wire.OpRegister}, body.Buf)
	code, payload := replyOutcome(cl.c.t, frame)
	if code == wire.OK {
		reg, _ := wire.DecodeRegisterReply(payload)
		cl.session = reg.Session
	}
	return code
}

// createStream sends CreateStream name with the client's next request id
// (or again with the same one when retry is set).
func (cl *cclient) createStream(name string, retry bool) wire.Code {
	if !retry {
		cl.request++
	}
	w := wire.Writer{}
	wire.CreateStreamRequest{Name: name}.Encode(&w)
	op := wire.OperationForCommand(wire.CmdCreateStream)
	frame := cl.call(wire.RequestHeader{Client: cl.id, Operation: op, Request: cl.request, Session: cl.session}, w.Buf)
	code, _ := replyOutcome(cl.c.t, frame)
	return code
}

// replyOutcome reads a reply's status: the header status, or the first
// result entry's code.
func replyOutcome(t *testing.T, frame []byte) (wire.Code, []byte) {
	t.Helper()
	h, code := wire.DecodeReplyHeader(frame)
	if code != wire.OK {
		e, _ := wire.DecodeEviction(frame)
		t.Fatalf("not a reply frame (%s): eviction reason %d", code.Name(), e.Reason)
	}
	if h.Status != wire.OK {
		return h.Status, nil
	}
	rb, code := wire.SplitReplyBody(h, frame[wire.HeaderSize:])
	if code != wire.OK {
		t.Fatalf("malformed reply body: %s", code.Name())
	}
	return rb.Result, rb.Payload
}

// covers VSR-1, ROOT-7
// Three replicas on fresh disks: the primary proposes root, every replica
// applies it. A client of a backup logs in and writes through it: the
// backup forwards its proposals to the primary and answers once the op
// applies locally.
func TestClusterReplicatesMetadata(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root on every replica", func() bool { return c.converged(1) })
	if p := c.primary(); p != 0 {
		t.Fatalf("primary of view 0 is %d", p)
	}
	cl := c.client(1)
	cl.connect(1)
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("s1", false))
	if code := cl.createStream("s1", false); code != wire.StreamNameAlreadyExists {
		t.Fatalf("second create through the backup: %s", code.Name())
	}
	other := c.client(2)
	other.connect(0)
	mustOK(t, other.login())
	mustOK(t, other.createStream("s2", false))
	c.until("convergence", func() bool { return c.converged(5) })
}

// covers VSR-28
// The primary dies with its unsynced writes lost; the backups elect a new
// primary, the client's session resumes there, and the old primary comes
// back from its disk and converges.
func TestClusterPrimaryCrash(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("s1", false))
	c.stop(0, true)
	c.until("a new primary", func() bool { return c.primary() > 0 })
	cl.connect(c.primary())
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("s2", false))
	c.start(0)
	c.until("convergence", func() bool { return c.converged(5) })
	if c.marks["vsr.backup.primary_timeout"] == 0 {
		t.Fatalf("no view change by timeout: %v", c.marks)
	}
}

// A primary cut off after proposing answers 57 once it steps down; the
// client retries the same request id on the new primary and the command
// applies once, whether or not the first attempt also committed.
func TestClusterRetryAfterUnknownOutcome(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	mustOK(t, cl.login())
	c.isolate(0, true)
	if code := cl.createStream("s1", false); code != wire.TransientNotCommitted {
		t.Fatalf("create on a cut-off primary: %s, want 57", code.Name())
	}
	c.until("a new primary", func() bool { p := c.primary(); return p > 0 })
	cl.connect(c.primary())
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("s1", true))
	c.isolate(0, false)
	c.until("convergence", func() bool { return c.converged(4) })
}

// covers VSR-22, VSR-25
// A replica cut off while the others checkpoint past what they keep for
// repair catches up by state transfer of the metadata image.
func TestClusterStateTransfer(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	mustOK(t, cl.login())
	c.isolate(2, true)
	for i := range 20 {
		mustOK(t, cl.createStream("s"+strconv.Itoa(i), false))
	}
	c.isolate(2, false)
	c.until("convergence", func() bool { return c.converged(22) })
	if c.marks["vsr.state_transfer.installed"] == 0 {
		t.Fatalf("no state transfer: %v", c.marks)
	}
}

func mustOK(t *testing.T, code wire.Code) {
	t.Helper()
	if code != wire.OK {
		t.Fatalf("got %s", code.Name())
	}
}
