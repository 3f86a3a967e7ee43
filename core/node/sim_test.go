package node_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
	simdisk "github.com/iggygo/iggy/sim/disk"
	"github.com/iggygo/iggy/wire"
)

// Bounds of the harness: a settle that takes more rounds than this is a
// livelock, and one step hands the node at most this many completions
// (more than one, so the node's group commit is exercised).
const (
	settleRoundsMax       = 1 << 20
	completionsPerStepMax = 4
)

// The simulated host: its clock starts at a fixed instant and moves only
// with tick commands, so every timestamp in a transcript is reproducible.
const (
	startMicros      = 1_700_000_000_000_000
	microsPerTick    = clock.TickMillis * 1000
	serverVersion    = "0.0.0-sim"
	segmentSizeBytes = 1 << 20
)

// simCrypto is the cheap deterministic stand-in for argon2id and BLAKE3.
type simCrypto struct{ rng *rand.Rand }

func (c simCrypto) HashToken(token string) string { return "t:" + token }

// runJob answers the node's password jobs as cheaply: hash = "h:"+password.
func runJob(r compute.Request) compute.Result {
	switch r.Kind {
	case compute.KindHashPassword:
		return compute.Result{ID: r.ID, Data: []byte("h:" + r.Password)}
	case compute.KindVerifyPassword:
		if r.Hash == "h:"+r.Password {
			return compute.Result{ID: r.ID}
		}
		return compute.Result{ID: r.ID, Code: uint32(wire.InvalidCredentials)}
	case compute.KindExternalAuth:
		// The stand-in service allows "ext-NAME" as NAME and denies the rest.
		if name, ok := strings.CutPrefix(r.Username, "ext-"); ok {
			return compute.Result{ID: r.ID, Data: []byte(name)}
		}
		return compute.Result{ID: r.ID, Code: uint32(wire.InvalidCredentials)}
	}
	return compute.Result{ID: r.ID, Code: uint32(wire.FeatureUnavailable)}
}
func (c simCrypto) Random(b []byte) {
	for i := range b {
		b[i] = byte(c.rng.Uint64())
	}
}

func (c simCrypto) NewKey(b []byte) { c.Random(b) }

func (c simCrypto) NewToken() string {
	return fmt.Sprintf("%016x%016x", c.rng.Uint64(), c.rng.Uint64())
}

// rootCredentials are the root user of a fresh start, hashed as simCrypto does.
func rootCredentials(user, password string) *node.RootCredentials {
	return &node.RootCredentials{Username: user, PasswordHash: "h:" + password}
}

// world is one node on one sim disk, with named clients, driven one
// command at a time. Every choice it makes (completion order, how many
// completions a step takes, client ids, tokens) comes from the seed.
type world struct {
	t      testing.TB
	rng    *rand.Rand
	disk   *simdisk.Disk
	node   *node.Node   // nil while down; the front shard when there are hosts
	hosts  []*node.Node // the other shards (shards_world_test.go)
	shards int          // shards of the node (boot and restart shards=N)
	// shardReqs routes renamed disk requests back to their shard.
	shardReqs map[storage.ReqID]shardReq
	lastReq   storage.ReqID
	marks     mark.Counts // what every node incarnation hit
	ticks     uint64
	clients   map[string]*simClient
	conns     map[bus.ConnID]*simClient
	lastCID   bus.ConnID
	batches   uint64 // sends so far: a batch's payloads name it
	// stepped is set when the node was stepped outside the disk loop (a
	// connection closed), so its output must be taken once more.
	stepped bool
	jobs    []compute.Request // handed out by the node, answered by runJobs
	// calloutsMax is external_auth.max_concurrent_callouts (0: disabled);
	// heldCallouts are the callouts of "slow-" users, answered only by
	// release-callouts (externalauth_test.go).
	calloutsMax  uint32
	heldCallouts []compute.Request
	// clientsTableMax is the node's metadata.clients_table_max (0: the
	// default), set by boot and restart.
	clientsTableMax uint32
	// dedupClientsMax is partition.dedup_clients_max (0: the default).
	dedupClientsMax uint32
	// parkedMax is sharding.deferred_poll_max_pending (0: the default).
	parkedMax uint32
	// perSessionMax and readMax are deferred_poll_max_pending_per_session
	// and deferred_poll_max_read_bytes (0: the defaults).
	perSessionMax uint32
	readMax       uint64
	// inflightMax is sharding.deferred_poll_max_inflight_bytes (0: the default).
	inflightMax uint64
	// heartbeatTicks is the node's heartbeat.interval in ticks (0: off, so
	// sessions end only by logout).
	heartbeatTicks uint64

	cmd     int             // the script command being run, counted from 1
	current *simClient      // the client it names, if any
	nowait  bool            // it is sent without settling
	out     []string        // its output lines
	trace   bytes.Buffer    // every reply and disk request, byte for byte
	order   []storage.ReqID // disk completions, in the order they happened
	// failWrites: writes, creates, truncates and syncs of files under this
	// prefix fail with an I/O error (disk-fail); "" fails none.
	failWrites string
}

func newWorld(t testing.TB, seed uint64) *world {
	w := &world{
		t: t, rng: rand.New(rand.NewPCG(seed, 0x5eed)),
		clients: map[string]*simClient{}, conns: map[bus.ConnID]*simClient{},
		shardReqs: map[storage.ReqID]shardReq{}, marks: mark.Counts{},
	}
	w.disk = simdisk.New(simdisk.Options{Seed: seed, Faults: w.fault})
	return w
}

// fault fails the changes of files under failWrites (a full disk, a
// read-only directory, no file descriptors left).
func (w *world) fault(r *storage.Request, _ *rand.Rand) simdisk.Fault {
	if w.failWrites != "" && r.Op != storage.OpRead && r.Op != storage.OpList && strings.HasPrefix(r.File, w.failWrites) {
		return simdisk.FaultIOError
	}
	return simdisk.FaultNone
}

func (w *world) printf(format string, args ...any) {
	w.out = append(w.out, fmt.Sprintf(format, args...))
}

func (w *world) now() node.Tick {
	return node.Tick{Ticks: w.ticks, NowMicros: startMicros + w.ticks*microsPerTick}
}

// start makes a fresh node over the disk and runs its recovery.
func (w *world) start(root *node.RootCredentials) {
	w.t.Helper()
	w.startUnsettled(root)
	w.settle()
}

// startUnsettled makes the node and starts its boot, leaving the disk work
// to the caller.
func (w *world) startUnsettled(root *node.RootCredentials) {
	cfg := node.Config{
		ServerVersion: serverVersion, SegmentSizeBytes: segmentSizeBytes,
		AdvertisedHost: "127.0.0.1", TCPPort: 8090, MaxTokensPerUser: 10, Root: root,
		ClientsTableMax: w.clientsTableMax, DedupClientsMax: w.dedupClientsMax, Shards: uint8(w.shards), Marks: w.marks,
		DeferredPollMaxPending: w.parkedMax, DeferredPollInflightBytesMax: w.inflightMax,
		DeferredPollMaxPendingPerSession: w.perSessionMax, DeferredPollReadBytesMax: w.readMax,
		HeartbeatIntervalTicks: w.heartbeatTicks, ExternalAuthCalloutsMax: w.calloutsMax,
	}
	w.node = node.New(cfg, simCrypto{rng: w.rng})
	w.node.Step(w.now())
	w.startHosts(cfg)
	w.node.Boot()
}

// down forgets the node and every connection to it, as a dead process does.
func (w *world) down() {
	w.node, w.hosts = nil, nil
	w.shardReqs = map[storage.ReqID]shardReq{}
	for _, c := range w.sortedClients() {
		c.lost(w)
	}
	w.conns = map[bus.ConnID]*simClient{}
}

func (w *world) requireUp() {
	w.t.Helper()
	if w.node == nil {
		w.t.Fatal("the node is down: restart it first")
	}
}

// settle runs the node and disk until nothing is in flight, stepping a
// random number of completions between two takes of the node's output.
func (w *world) settle() {
	w.t.Helper()
	for range settleRoundsMax {
		w.takeReady()
		if w.node != nil && len(w.jobs) > 0 {
			w.runJobs()
			continue
		}
		if w.node == nil || (w.disk.Pending() == 0 && !w.stepped) {
			w.noReplies()
			return
		}
		if n := w.disk.Pending(); n > 0 {
			w.stepDisk(1 + w.rng.IntN(min(n, completionsPerStepMax)))
		}
	}
	w.t.Fatalf("no quiet state after %d rounds: %v", settleRoundsMax, w.disk)
}

// runJobs answers the jobs the node handed out, in order, as results.
func (w *world) runJobs() {
	jobs := w.jobs
	w.jobs = nil
	for _, j := range jobs {
		if j.Kind == compute.KindExternalAuth && strings.HasPrefix(j.Username, "slow-") {
			w.heldCallouts = append(w.heldCallouts, j)
			continue
		}
		w.node.Step(node.JobResult(runJob(j)))
	}
}

// stepDisk hands the node up to n completions, in the disk's order.
func (w *world) stepDisk(n int) {
	for range n {
		c, ok := w.disk.Next()
		if !ok {
			return
		}
		w.traceCompletion(c)
		w.complete(c)
	}
}

// rmRequestID tags the disk request of removeFile, which no node waits for.
const rmRequestID = storage.ReqID(1 << 62)

// removeFile deletes path on the disk at once, as an operator would while
// nothing is in flight.
func (w *world) removeFile(path string) error {
	w.disk.Submit(storage.Request{ID: rmRequestID, Op: storage.OpDelete, File: path})
	c, _ := w.disk.Next()
	if c.Result != storage.ResultOK {
		return fmt.Errorf("result %d: %s", c.Result, c.Err)
	}
	return nil
}

// takeReady carries out what the node asked for: disk requests, replies, logs.
func (w *world) takeReady() {
	w.t.Helper()
	if w.node == nil {
		return
	}
	w.stepped = false
	var msgs []node.ShardMessage
	for i, n := range w.shardNodes() {
		msgs = append(msgs, w.carryOut(i, n.TakeReady())...)
		if w.node == nil {
			return // a shard failed: the process is gone
		}
	}
	w.handOffs(msgs)
}

// carryOut performs shard i's Ready and returns its hand-offs.
func (w *world) carryOut(i int, r node.Ready) []node.ShardMessage {
	for _, req := range r.Disk {
		w.traceRequest(req)
	}
	w.submitFrom(i, r.Disk)
	w.jobs = append(w.jobs, r.Compute...)
	for _, line := range r.Logs {
		w.printf("log: %s", line)
	}
	for _, rep := range r.Replies {
		w.deliver(rep)
	}
	if r.Booted {
		w.printf("booted")
	}
	if r.Fatal != "" {
		w.printf("fatal: %s", r.Fatal)
		w.disk.Kill()
		w.down()
	}
	return r.Shards
}

// deliver hands a reply to its client; a Close or an eviction ends the
// connection, which the node then hears about, as from a real socket.
func (w *world) deliver(rep bus.Reply) {
	var frame []byte
	for _, p := range rep.Parts {
		frame = append(frame, p...)
	}
	w.traceReply(rep.Conn, frame, rep.Close)
	c, ok := w.conns[rep.Conn]
	if !ok {
		return
	}
	if len(frame) > 0 {
		c.received(w, frame)
	}
	if rep.Close {
		w.printf("%sconnection closed by the server", c.prefix(w))
	}
	if rep.Close || c.evicted {
		w.closeConn(c)
	}
}

func (w *world) closeConn(c *simClient) {
	delete(w.conns, c.conn)
	id := c.conn
	c.conn = 0
	c.evicted = false
	if w.node != nil {
		w.node.Step(node.ConnClosed{Conn: id})
		w.stepped = true
	}
}

// noReplies reports every request that got nothing once all is quiet.
func (w *world) noReplies() {
	for _, c := range w.sortedClients() {
		var held []*request
		for _, r := range c.awaiting {
			if r.held {
				held = append(held, r)
				continue
			}
			w.printf("%sno reply (%s)", r.prefix(w), r.what)
		}
		c.awaiting = held
	}
}

func (w *world) sortedClients() []*simClient {
	names := make([]string, 0, len(w.clients))
	for n := range w.clients {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*simClient, len(names))
	for i, n := range names {
		out[i] = w.clients[n]
	}
	return out
}

// The trace is every input from the disk and every output of the node, in
// order and byte for byte: two runs of one seed must produce the same one.
func (w *world) traceRequest(r storage.Request) {
	fmt.Fprintf(&w.trace, "req %d %v %s %s %d %d ", r.ID, r.Op, r.File, r.Target, r.Offset, r.Len)
	for _, b := range r.Data {
		w.trace.WriteString(hex.EncodeToString(b))
	}
	w.trace.WriteByte('\n')
}

func (w *world) traceCompletion(c storage.Completion) {
	w.order = append(w.order, c.ID)
	fmt.Fprintf(&w.trace, "done %d %d %x %v\n", c.ID, c.Result, c.Data, c.Entries)
}

func (w *world) traceReply(conn bus.ConnID, frame []byte, closed bool) {
	fmt.Fprintf(&w.trace, "reply %d %t %x\n", conn, closed, frame)
}

// newClientID draws a nonzero client id, as the SDK does.
func (w *world) newClientID() wire.U128 {
	for {
		id := wire.U128{Lo: w.rng.Uint64(), Hi: w.rng.Uint64()}
		if !id.IsZero() {
			return id
		}
	}
}

// payload names message i of batch b, padded with dots to size bytes.
func payload(b uint64, i int, size int) []byte {
	p := []byte(fmt.Sprintf("b%d#%d", b, i))
	if len(p) < size {
		p = append(p, bytes.Repeat([]byte("."), size-len(p))...)
	}
	return p
}

// parsePayload reads the batch and index a payload names.
func parsePayload(p []byte) (uint64, int, bool) {
	s := strings.TrimRight(string(p), ".")
	var b uint64
	var i int
	n, err := fmt.Sscanf(s, "b%d#%d", &b, &i)
	return b, i, err == nil && n == 2
}

func messageID(b uint64, i int) [16]byte {
	var id [16]byte
	binary.LittleEndian.PutUint64(id[:], b)
	binary.LittleEndian.PutUint64(id[8:], uint64(i)+1)
	return id
}
