package node_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// scriptFlags are the bare words a command may carry.
var scriptFlags = []string{"nowait", "torn", "balanced", "next", "auto-commit", "new-id", "last", "held", "first"}

type command func(w *world, a *args)

// commands is the script language. World commands: boot, restart, crash,
// tick, settle, disk-step, ls, rm. Client commands name the client first; with
// the flag nowait they only hand the frame over (and the node's disk
// requests to the disk), and their reply shows up in a later command's output.
var commands map[string]command

func init() {
	commands = map[string]command{
		"boot": cmdBoot, "restart": cmdRestart, "crash": cmdCrash, "tick": cmdTick,
		"settle":    func(w *world, a *args) { a.done(0); w.requireUp(); w.settle() },
		"disk-step": cmdDiskStep, "ls": cmdLs, "jobs": cmdJobs, "job-step": cmdJobStep, "disk-fail": cmdDiskFail,
		"connect": cmdConnect, "disconnect": cmdDisconnect, "login": cmdLogin, "logout": cmdLogout,
		"ping": cmdPing, "raw": cmdRaw, "resend": cmdResend, "bind": cmdBind,
		"create-stream": cmdCreateStream, "delete-stream": cmdDeleteStream, "get-stream": cmdGetStream, "get-streams": cmdGetStreams,
		"create-topic": cmdCreateTopic, "delete-topic": cmdDeleteTopic, "delete-segments": cmdDeleteSegments, "get-topic": cmdGetTopic,
		"create-user": cmdCreateUser, "update-permissions": cmdUpdatePermissions,
		"send": cmdSend, "poll": cmdPoll, "deferred-poll": cmdDeferredPoll, "poll-options": cmdPollOptions, "fetch": cmdFetch, "cancel-deferred": cmdCancelDeferred,
		"store-offset": cmdStoreOffset, "get-offset": cmdGetOffset, "delete-offset": cmdDeleteOffset,
		"rm": cmdRm, "release-callouts": cmdReleaseCallouts,
	}
}

// run executes one script line and returns its output lines.
func (w *world) run(line string) []string {
	w.t.Helper()
	w.out, w.current = nil, nil
	w.cmd++
	a := parseArgs(w.t, line, scriptFlags...)
	cmd, ok := commands[a.cmd]
	if !ok {
		w.t.Fatalf("unknown command %q", a.cmd)
	}
	cmd(w, a)
	return w.out
}

func rootArg(a *args) (user, password string, ok bool) {
	s := a.str("root", "")
	if s == "" {
		return "", "", false
	}
	user, password, ok = strings.Cut(s, "/")
	if !ok {
		a.fail("root=%q is not user/password", s)
	}
	return user, password, true
}

// boot [root=user/password] [clients=N] [shards=N] [parked=N] [parked-per-session=N] [defer-inflight=N] [defer-read=N] [callouts=N]
// [heartbeat=T]: start the first node on the empty disk, with a client table
// of N sessions, room for N parked deferred polls per shard and N bytes of
// their reads, and a heartbeat interval of T ticks (0, the default:
// sessions never expire).
func cmdBoot(w *world, a *args) {
	user, password, ok := rootArg(a)
	w.calloutsMax = a.u32("callouts", 0)
	w.clientsTableMax = a.u32("clients", 0)
	w.dedupClientsMax = a.u32("dedup", 0)
	w.parkedMax = a.u32("parked", 0)
	w.inflightMax = a.u64("defer-inflight", 0)
	w.perSessionMax = a.u32("parked-per-session", 0)
	w.readMax = a.u64("defer-read", 0)
	w.heartbeatTicks = a.u64("heartbeat", 0)
	w.shards = int(a.u32("shards", 1))
	a.done(0)
	if w.node != nil {
		a.fail("the node is already up")
	}
	if ok {
		w.start(rootCredentials(user, password))
		return
	}
	w.start(nil)
}

// restart [root=user/password] [clients=N] [shards=N] [heartbeat=T]: the process dies (requests in
// flight are dropped, the page cache survives) and a new node boots on the
// same disk, configured with a client table of N sessions.
func cmdRestart(w *world, a *args) {
	user, password, ok := rootArg(a)
	w.clientsTableMax = a.u32("clients", 0)
	w.heartbeatTicks = a.u64("heartbeat", 0)
	w.shards = int(a.u32("shards", uint32(max(w.shards, 1))))
	a.done(0)
	if w.node != nil {
		if n := w.disk.Kill(); n > 0 {
			w.printf("dropped %d disk requests in flight", n)
		}
		w.down()
	}
	if ok {
		w.start(rootCredentials(user, password))
		return
	}
	w.start(nil)
}

// crash [torn] [keep=prefix:bytes]: power loss. Unsynced writes are lost,
// except a random prefix of each file's with torn, or the first bytes of
// the unsynced writes of files whose path starts with prefix with keep.
// The node is down until restart.
func cmdCrash(w *world, a *args) {
	torn := a.flag("torn")
	keepPath, keepBytes := "", uint64(0)
	if s := a.str("keep", ""); s != "" {
		p, n, ok := strings.Cut(s, ":")
		if _, err := fmt.Sscan(n, &keepBytes); !ok || err != nil {
			a.fail("keep=%q is not path:bytes", s)
		}
		keepPath = p
	}
	a.done(0)
	rep := w.disk.CrashKeeping(func(path string, unsynced uint64) uint64 {
		switch {
		case keepPath != "" && strings.HasPrefix(path, keepPath):
			return keepBytes
		case torn:
			return w.rng.Uint64N(unsynced + 1)
		}
		return 0
	})
	w.printf("crash: %s", rep)
	w.down()
}

// tick n: n clock ticks, each stepped on its own.
func cmdTick(w *world, a *args) {
	var n uint64
	if _, err := fmt.Sscan(a.arg(0), &n); err != nil {
		a.fail("tick count %q: %v", a.arg(0), err)
	}
	a.done(1)
	w.requireUp()
	for range n {
		w.ticks++
		w.tickAll()
	}
	w.settle()
}

// disk-step n: complete n disk requests without settling.
func cmdDiskStep(w *world, a *args) {
	var n int
	if _, err := fmt.Sscan(a.arg(0), &n); err != nil {
		a.fail("count %q: %v", a.arg(0), err)
	}
	a.done(1)
	w.requireUp()
	for range n {
		w.stepDisk(1)
		w.takeReady()
	}
	w.printf("%d disk requests pending", w.disk.Pending())
}

// jobs: the compute jobs handed out and not yet answered, oldest first (a
// password check shows its password: the tests' passwords name the login).
func cmdJobs(w *world, a *args) {
	a.done(0)
	w.requireUp()
	w.takeReady()
	w.listJobs()
}

// job-step: answer only the oldest job handed out, then list the jobs
// pending (without settling the disk).
func cmdJobStep(w *world, a *args) {
	a.done(0)
	w.requireUp()
	w.takeReady()
	if len(w.jobs) == 0 {
		a.fail("no job is pending")
	}
	j := w.jobs[0]
	w.jobs = w.jobs[1:]
	w.node.Step(node.JobResult(runJob(j)))
	w.takeReady()
	w.listJobs()
}

func (w *world) listJobs() {
	for _, j := range w.jobs {
		switch j.Kind {
		case compute.KindVerifyPassword:
			w.printf("check password=%s", j.Password)
		case compute.KindHashPassword:
			w.printf("hash password=%s", j.Password)
		default:
			w.printf("job kind=%d", j.Kind)
		}
	}
}

// disk-fail prefix|off: changes of files under prefix fail with an I/O
// error from now on (off: none fail).
func cmdDiskFail(w *world, a *args) {
	w.failWrites = a.arg(0)
	if w.failWrites == "off" {
		w.failWrites = ""
	}
	a.done(1)
}

// ls [prefix]: files with their volatile and durable sizes.
func cmdLs(w *world, a *args) {
	prefix := ""
	if len(a.pos) > 0 {
		prefix = a.arg(0)
	}
	a.done(1)
	for _, p := range w.disk.Files() {
		if strings.HasPrefix(p, prefix) {
			img, _ := w.disk.File(p)
			w.printf("%s %d (durable %d)", p, len(img.Volatile), len(img.Durable))
		}
	}
}

// rm path: an operator deletes a file while the node is quiet (nothing in
// flight on the disk); the delete is durable at once.
func cmdRm(w *world, a *args) {
	path := a.arg(0)
	a.done(1)
	if w.disk.Pending() > 0 {
		a.fail("rm %s: %d disk requests in flight", path, w.disk.Pending())
	}
	if err := w.removeFile(path); err != nil {
		a.fail("rm %s: %v", path, err)
	}
	w.printf("removed %s", path)
}

// clientOf returns the client a command names first, creating it on first
// use, and notes whether the command is sent with nowait.
func (w *world) clientOf(a *args) *simClient {
	name := a.arg(0)
	w.nowait = a.flag("nowait")
	c, ok := w.clients[name]
	if !ok {
		c = &simClient{name: name, sent: map[uint64]*request{}}
		w.clients[name] = c
	}
	w.current = c
	return c
}

// finish settles after a client command, unless it was sent with nowait.
func (w *world) finish() {
	if w.nowait {
		w.takeReady()
		return
	}
	w.settle()
}

// connect c [new-id] [from=ip]: open a connection, from 10.0.0.<conn>
// unless from names the address. The client keeps its id (and so can
// resume its session) unless it has none yet or new-id is given.
func cmdConnect(w *world, a *args) {
	c := w.clientOf(a)
	fresh := a.flag("new-id")
	from := a.str("from", "")
	a.done(1)
	w.requireUp()
	if c.conn != 0 {
		a.fail("%s is already connected", c.name)
	}
	if fresh || c.id.IsZero() {
		c.fresh(w)
	}
	w.lastCID++
	c.conn = w.lastCID
	w.conns[c.conn] = c
	if from == "" {
		from = fmt.Sprintf("10.0.0.%d", c.conn)
	}
	w.node.Step(node.ConnOpened{Conn: c.conn, Transport: bus.TransportTCP, Addr: fmt.Sprintf("%s:%d", from, 5000+c.conn)})
	w.printf("connected conn=%d", c.conn)
	w.settle()
}

// disconnect c: the client closes its socket (an implicit logout).
func cmdDisconnect(w *world, a *args) {
	c := w.clientOf(a)
	a.done(1)
	w.requireUp()
	if c.conn == 0 {
		a.fail("%s is not connected", c.name)
	}
	w.closeConn(c)
	w.printf("disconnected")
	w.settle()
}

// login c user password [version=x.y.z] [held]: with held, the node is
// expected to hold the login (backoff), so its reply comes in a later
// command's output and quiet until then is no "no reply".
func cmdLogin(w *world, a *args) {
	c := w.clientOf(a)
	held := a.flag("held")
	version := wire.ProtocolVersionCurrent
	if a.has("version") {
		version = parseVersion(w.t, a.str("version", ""))
	}
	body := wire.Writer{}
	wire.LoginPrefix{Version: version, SDKName: "sim-sdk", SDKVersion: "0.0.1"}.Encode(&body)
	wire.LoginPassword{Username: a.arg(1), Password: a.arg(2)}.Encode(&body)
	a.done(3)
	w.call(c, "login", wire.CmdLoginRegister, body.Buf, decodeLogin).held = held
	w.finish()
}

func decodeLogin(w *world, c *simClient, payload []byte) string {
	reg, code := wire.DecodeRegisterReply(payload)
	if code != wire.OK {
		return "malformed register reply: " + code.Name()
	}
	c.session = reg.Session
	return fmt.Sprintf("ok user=%d session=%d server=%s", reg.UserID, reg.Session, reg.ServerVersion)
}

// logout c: ends the session; the client then draws a fresh id.
func cmdLogout(w *world, a *args) {
	c := w.clientOf(a)
	a.done(1)
	w.call(c, "logout", wire.CmdLogoutUser, nil, func(w *world, c *simClient, _ []byte) string {
		c.fresh(w)
		return "ok"
	})
	w.finish()
}

// bind c to=a [session=N]: BindSession on c's connection with a's client id
// and a's session (or N); once bound, c speaks as a: its id, session and
// request counter (the two must coordinate request ids, as one SDK does).
func cmdBind(w *world, a *args) {
	c := w.clientOf(a)
	owner, ok := w.clients[a.str("to", "")]
	if !ok {
		a.fail("bind needs to=<a known client>")
	}
	session := a.u64("session", owner.session)
	a.done(1)
	body := binary.LittleEndian.AppendUint64(nil, owner.id.Lo)
	body = binary.LittleEndian.AppendUint64(body, owner.id.Hi)
	body = binary.LittleEndian.AppendUint64(body, session)
	w.call(c, "bind", wire.CmdBindSession, body, func(w *world, c *simClient, payload []byte) string {
		line := decodeLogin(w, c, payload)
		c.id, c.counter = owner.id, max(c.counter, owner.counter)
		return line
	})
	w.finish()
}

func cmdPing(w *world, a *args) {
	c := w.clientOf(a)
	a.done(1)
	w.call(c, "ping", wire.CmdPing, nil, decodeEmpty)
	w.finish()
}

func decodeEmpty(_ *world, _ *simClient, payload []byte) string {
	if len(payload) != 0 {
		return fmt.Sprintf("ok with %d unexpected bytes", len(payload))
	}
	return "ok"
}

func decodeBytes(_ *world, _ *simClient, payload []byte) string {
	return fmt.Sprintf("ok body=%d bytes", len(payload))
}

// raw c op=N [code=N] [body=hex] [request=N] [session=N]: any frame, stamped
// by the SDK's rules for op unless request or session are given.
func cmdRaw(w *world, a *args) {
	c := w.clientOf(a)
	op := wire.Operation(a.u64("op", 0))
	code := wire.Command(a.u64("code", 0))
	body, err := hex.DecodeString(a.str("body", ""))
	if err != nil {
		a.fail("body: %v", err)
	}
	h := c.stamp(op, code)
	if op != wire.OpNonReplicated {
		h.NRCode = code
	}
	h.Request = a.u64("request", h.Request)
	h.Session = a.u64("session", h.Session)
	a.done(1)
	w.transmit(&request{client: c, what: "raw", frame: buildFrame(h, body), header: h, decode: decodeBytes})
	w.finish()
}

// resend c (request=N | last [from=c2]): the metadata frame first sent with
// id N, or the last frame sent (by c2, when named), byte for byte.
func cmdResend(w *world, a *args) {
	c := w.clientOf(a)
	orig := c.last
	if from, ok := w.clients[a.str("from", "")]; ok {
		orig = from.last // another connection's request, resent on this one
	}
	if !a.flag("last") {
		id := a.u64("request", 0)
		var ok bool
		if orig, ok = c.sent[id]; !ok {
			a.fail("%s sent no metadata request %d", c.name, id)
		}
	}
	a.done(1)
	if orig == nil {
		a.fail("%s sent nothing yet", c.name)
	}
	w.transmit(&request{client: c, what: "resend " + orig.what, frame: orig.frame, header: orig.header,
		decode: orig.decode, orig: orig})
	w.finish()
}

// partitionOf reads partition=N, the partition a poll or offset names.
func partitionOf(a *args) wire.OptionalPartition {
	if !a.has("partition") {
		return wire.OptionalPartition{}
	}
	return wire.OptionalPartition{Given: true, ID: a.u32("partition", 0)}
}

// consumerOf is consumer=ID (default 1), or group=ID for a consumer group.
func consumerOf(a *args) wire.Consumer {
	if a.has("group") {
		return wire.Consumer{Kind: wire.ConsumerKindGroup, ID: ident(a.str("group", ""))}
	}
	return wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: ident(a.str("consumer", "1"))}
}

// batchRecord builds count messages of the next batch.
func (w *world) batchRecord(a *args, count int, size int) (uint64, []byte) {
	w.batches++
	msgs := make([]batch.Message, count)
	for i := range msgs {
		msgs[i] = batch.Message{ID: messageID(w.batches, i), OriginTimestamp: w.now().NowMicros,
			Payload: payload(w.batches, i, size)}
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		a.fail("cannot build a batch of %d messages of %d bytes: %s", count, size, code.Name())
	}
	return w.batches, rec
}
