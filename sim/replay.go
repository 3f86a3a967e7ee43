package sim

import (
	"bufio"
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/compute"
)

// traceLineBytesMax bounds one line of a trace (a frame or a read of up to
// 64 MiB, hex encoded).
const traceLineBytesMax = 160 << 20

// ReplayResult is what replaying a trace found.
type ReplayResult struct {
	Seed     uint64
	Recorded uint64 // the hash the trace ends with
	Replayed uint64 // the hash of the outputs the replay produced
	Inputs   int
}

// Replay drives fresh nodes with exactly the inputs a gzip trace recorded,
// taking their output at the same points, and hashes the outputs. It needs
// no simulator state: it checks that the core is a deterministic function
// of its inputs, and reproduces a failing run without the world around it.
func Replay(r io.Reader) (ReplayResult, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), traceLineBytesMax)
	var res ReplayResult
	t := newTracer(nil)
	var hosts [replicasMax]*replayHost
	var n *node.Node // the shard t.cur, t.shard names
	for lineNo := 1; sc.Scan(); lineNo++ {
		verb, f := parseFields(sc.Text())
		if lineNo == 1 {
			if sc.Text() != TraceVersion {
				return res, fmt.Errorf("replay: trace version %q, this build replays %q", sc.Text(), TraceVersion)
			}
			continue
		}
		var err error
		switch verb {
		case "seed":
			res.Seed, err = parseU64(arg(f, 0))
		case "profile", "knobs":
		case "node":
			var h *replayHost
			h, err = replayNode(t, f)
			if err == nil {
				hosts[t.cur], n = h, h.nodes[0]
			}
		case "host":
			n, err = replaySubject(t, &hosts, f)
		case "boot":
			if n == nil || t.shard != 0 {
				err = fmt.Errorf("boot before node, or of a host shard")
				break
			}
			n.Boot()
		case "take":
			if n == nil {
				err = fmt.Errorf("take before node")
				break
			}
			ready := n.TakeReady()
			t.take(&ready)
			h := hosts[t.cur]
			h.handOffs = append(h.handOffs, ready.Shards...)
		case "hand":
			err = replayHandOff(t, hosts[t.cur], f)
			res.Inputs++
		case "end":
			res.Recorded, err = strconv.ParseUint(arg(f, 0), 16, 64)
			res.Replayed = t.sum()
			if err == nil && res.Recorded != res.Replayed {
				err = fmt.Errorf("hash %016x, recorded %016x", res.Replayed, res.Recorded)
			}
			return res, wrapLine(err, lineNo)
		default:
			var in node.Input
			in, err = parseInput(verb, f)
			if err == nil && n == nil {
				err = fmt.Errorf("input before node")
			}
			if err == nil {
				n.Step(in)
				res.Inputs++
			}
		}
		if err != nil {
			return res, wrapLine(err, lineNo)
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("replay: %w", err)
	}
	return res, fmt.Errorf("replay: the trace has no end line")
}

func wrapLine(err error, line int) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("replay: line %d: %w", line, err)
}

func arg(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

// replayHost is a replica's process in a replay: its shards and the
// hand-offs they emitted and were not stepped yet.
type replayHost struct {
	nodes    []*node.Node
	handOffs []node.ShardMessage
}

func replayNode(t *tracer, f []string) (*replayHost, error) {
	replica, err1 := parseU64(arg(f, 0))
	replicas, err2 := parseU64(arg(f, 1))
	every, err3 := parseU64(arg(f, 2))
	cache, err4 := parseU64(arg(f, 3))
	shards, err5 := parseU64(arg(f, 4))
	var heartbeat uint64
	var err6 error
	if len(f) > 5 { // traces before session leases have no heartbeat
		heartbeat, err6 = parseU64(arg(f, 5))
	}
	racks, err7 := parseRacks(arg(f, 6)) // traces before placement have none
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || err6 != nil || err7 != nil ||
		replica >= replicasMax || replicas > replicasMax || shards > shardsMax || len(racks) != 0 && len(racks) != int(replicas) {
		return nil, fmt.Errorf("bad node line %v", f)
	}
	p := nodeParams{Replica: uint8(replica), Replicas: uint8(replicas), Shards: uint8(shards),
		CheckpointEveryOps: every, PartitionCacheBytes: cache, HeartbeatTicks: heartbeat, Racks: racks}
	t.nodeStart(p)
	return &replayHost{nodes: newShards(p, nil)}, nil
}

// replaySubject reads "host <replica> <shard>" and returns that shard.
func replaySubject(t *tracer, hosts *[replicasMax]*replayHost, f []string) (*node.Node, error) {
	i, err1 := parseU64(arg(f, 0))
	s, err2 := parseU64(arg(f, 1))
	if err1 != nil || err2 != nil || i >= replicasMax || hosts[i] == nil || s >= uint64(len(hosts[i].nodes)) {
		return nil, fmt.Errorf("bad host line %v", f)
	}
	t.cur, t.shard = int(i), int(s)
	return hosts[i].nodes[s], nil
}

// replayHandOff steps into the current shard the oldest hand-off of the
// pair the line names, as the replay's own shards emitted it.
func replayHandOff(t *tracer, h *replayHost, f []string) error {
	from, err1 := parseU64(arg(f, 0))
	to, err2 := parseU64(arg(f, 1))
	if err1 != nil || err2 != nil || h == nil || to != uint64(t.shard) || from >= uint64(len(h.nodes)) {
		return fmt.Errorf("bad hand %v", f)
	}
	m, rest, ok := popHandOff(h.handOffs, uint8(from), uint8(to))
	if !ok {
		return fmt.Errorf("hand %v: no such hand-off pending", f)
	}
	h.handOffs = rest
	h.nodes[to].Step(m)
	return nil
}

func parseInput(verb string, f []string) (node.Input, error) {
	switch verb {
	case "tick":
		ticks, err1 := parseU64(arg(f, 0))
		micros, err2 := parseU64(arg(f, 1))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad tick %v", f)
		}
		return node.Tick{Ticks: ticks, NowMicros: micros}, nil
	case "open":
		conn, err1 := parseU64(arg(f, 0))
		tr, err2 := parseU64(arg(f, 1))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad open %v", f)
		}
		return node.ConnOpened{Conn: bus.ConnID(conn), Transport: bus.Transport(tr), Addr: arg(f, 2)}, nil
	case "close":
		conn, err := parseU64(arg(f, 0))
		return node.ConnClosed{Conn: bus.ConnID(conn)}, err
	case "frame":
		conn, err1 := parseU64(arg(f, 0))
		frame, err2 := hex.DecodeString(arg(f, 1))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad frame %.40v", f)
		}
		return node.ClientFrame{Conn: bus.ConnID(conn), Frame: frame}, nil
	case "peer":
		b, err := hex.DecodeString(arg(f, 0))
		if err != nil {
			return nil, err
		}
		return decodePeer(b)
	case "done":
		b, err := hex.DecodeString(arg(f, 0))
		if err != nil {
			return nil, err
		}
		c, err := decodeCompletion(b)
		return node.Completion(c), err
	case "job":
		id, err1 := parseU64(arg(f, 0))
		code, err2 := strconv.ParseUint(arg(f, 1), 10, 32)
		data, err3 := hex.DecodeString(arg(f, 2))
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("bad job %v", f)
		}
		res := compute.Result{ID: id, Code: uint32(code)}
		if len(data) > 0 {
			res.Data = data
		}
		return node.JobResult(res), nil
	}
	return nil, fmt.Errorf("unknown trace line %q", verb)
}
