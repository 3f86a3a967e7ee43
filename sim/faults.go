package sim

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"

	simdisk "github.com/iggygo/iggy/sim/disk"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire/batch"
)

// The fault atlas of one replica. With a single copy of everything, a
// fault is in the atlas when a correct node must survive it without loss:
//
//   - process kill, power loss (unsynced writes lost, the write in flight
//     torn), pauses, clock drift and steps, connection resets, slow disks;
//   - a transient read fault of a partition segment while serving (a bit
//     flipped in what one read returned, or EIO): the good copy is still on
//     the disk, and the poll must fail with an error, never serve wrong data.
//
// Outside the atlas, but injected and classified: a durable byte of a
// segment or metadata file rotting at rest. Its only copy is gone, so the
// record holding it and what follows may be legitimately lost (the oracles
// exempt them), and a node that refuses to boot on it is classified
// "unrecoverable", not failed. A sealed segment file cut short at rest
// (truncate.go) loses only its own tail: the offsets up to the next
// segment may be lost, the later segments may not, and no offset may be
// acknowledged twice. Not injected at all: read faults during recovery
// (the core cuts what does not check out, and cannot tell a flip from a
// torn write without a second copy), write I/O errors (a failed partition
// write breaks the log until the node reopens it after a backoff; the
// node's scenario write_retry covers it), and misdirected writes on a
// single replica.
//
// A replica set adds one rule: metadata or a partition segment rots at
// rest, or a metadata journal write is misdirected (it lands one to eight
// sectors off, in the same file), on at most f = (n-1)/2 replicas
// (mayDamageMetadata), so every committed op and message keeps a good copy
// on a quorum. Nothing acknowledged may then be lost: the damage is
// not recorded as an exemption, and a replica that stops on its damaged
// metadata is retired (the others go on; convergence ignores it). Process,
// clock and network faults hit every replica, primaries included.

// faulty says whether faults are on (before heal).
func (w *World) faulty() bool { return !w.healed && !w.calm() }

// chance is true with probability ppm per million.
func (w *World) chance(ppm int) bool { return ppm > 0 && w.rng.IntN(1_000_000) < ppm }

// faults draws this tick's process, clock and at-rest faults, replica by
// replica.
func (w *World) faults() {
	for _, h := range w.hosts {
		w.hostFaults(h)
	}
}

func (w *World) hostFaults(h *host) {
	k := &w.knobs
	switch {
	case h.node != nil && w.chance(k.KillPerMillion):
		w.crash(h, oracles.CrashKill)
	case h.node != nil && w.chance(k.PowerLossPerMillion):
		w.crash(h, oracles.CrashPowerLoss)
	case h.node != nil && !h.paused(w.tick) && w.chance(k.PausePerMillion):
		w.marks.Hit("sim.node.paused")
		w.event("pause %d", h.idx)
		h.pausedUntil = w.tick + 1 + w.rng.Uint64N(k.PauseTicksMax)
	}
	if w.chance(k.ClockStepPerMillion) {
		delta := int64(w.rng.Uint64N(k.ClockStepMaxMicros + 1))
		if w.rng.IntN(2) == 0 {
			delta = -delta
			w.marks.Hit("sim.clock.stepped_back")
		}
		h.clock.step(delta)
	}
	// Damage strikes a running node only, so a crash always separates it
	// from the boot that may cut the damaged record (the oracles' crash
	// operation carries the exemption).
	if h.booted && w.chance(k.DamagePerMillion) && w.mayDamageMetadata(h) {
		w.damageSegment(h)
	}
	if h.booted && w.chance(k.MetaDamagePerMillion) && w.mayDamageMetadata(h) {
		w.damageMetadata(h)
	}
	if h.booted && !w.cluster() && w.chance(k.TruncatePerMillion) {
		w.truncateSealed(h)
	}
}

// midBatchPowerLoss: in a replica set a power loss may also strike
// between two disk completions of one tick (fivefold the knob), where a
// journal write has completed and its sync has not: metadata writes are
// small and synced within the tick, so a loss at a tick's start rarely
// finds unsynced bytes.
func (w *World) midBatchPowerLoss(h *host) bool {
	if !w.cluster() || !w.faulty() || !w.chance(5*w.knobs.PowerLossPerMillion) {
		return false
	}
	w.marks.Hit("sim.crash.mid_batch")
	w.crash(h, oracles.CrashPowerLoss)
	return true
}

// mayDamageMetadata is the fault atlas of a replica set: metadata or
// partition data rots at rest on at most f replicas (a minority, f =
// (n-1)/2), so a quorum always holds a good copy of every committed op and
// message. A single replica may be hit (it is then classified, not failed).
func (w *World) mayDamageMetadata(h *host) bool {
	if !w.cluster() || h.metaDamaged || h.dataDamaged {
		return true
	}
	damaged := 0
	for _, o := range w.hosts {
		if o.metaDamaged || o.dataDamaged {
			damaged++
		}
	}
	return damaged < (len(w.hosts)-1)/2
}

// injector decides the fault of each disk request of h as it runs: reads
// of partition segments by a booted node, and in a replica set writes of
// the metadata journal (misdirected), before heal.
func (w *World) injector(h *host, req *storage.Request, rng *rand.Rand) simdisk.Fault {
	if req.Op == storage.OpWrite && w.misdirects(h, req, rng) {
		return simdisk.FaultMisdirectedWrite
	}
	if w.writeFails(h, req, rng) {
		return simdisk.FaultIOError
	}
	if req.Op != storage.OpRead || !h.booted || !w.faulty() ||
		!strings.HasPrefix(req.File, "streams/") || !strings.HasSuffix(req.File, ".log") {
		return simdisk.FaultNone
	}
	switch {
	case w.knobs.ReadCorruptPerMille > 0 && rng.IntN(1000) < w.knobs.ReadCorruptPerMille:
		w.marks.Hit("sim.disk.read_corrupted")
		w.readFaults[path.Dir(req.File)]++
		return simdisk.FaultCorruptRead
	case w.knobs.ReadErrorPerMille > 0 && rng.IntN(1000) < w.knobs.ReadErrorPerMille:
		w.marks.Hit("sim.disk.read_error")
		w.readFaults[path.Dir(req.File)]++
		return simdisk.FaultIOError
	}
	return simdisk.FaultNone
}

// writeFails decides whether a change of a partition segment file of a
// running standalone node fails (before heal). The partition then answers
// 4006 until the node reopens it; what a send that got 4006 wrote must not
// appear, and an acknowledgement under durability none may be lost.
func (w *World) writeFails(h *host, req *storage.Request, rng *rand.Rand) bool {
	if w.knobs.WriteErrorPerMille == 0 || w.cluster() || !h.booted || !w.faulty() || req.Op == storage.OpRead || req.Op == storage.OpList ||
		!strings.HasPrefix(req.File, "streams/") || !strings.HasSuffix(req.File, ".log") && !strings.HasSuffix(req.File, ".index") ||
		rng.IntN(1000) >= w.knobs.WriteErrorPerMille {
		return false
	}
	w.marks.Hit("sim.disk.write_error")
	w.event("write error %d: %s %s", h.idx, req.Op, req.File)
	dir := path.Dir(req.File)
	w.writeFaults[dir]++
	if k, ok := w.partOfDir(dir); ok {
		w.hist.WriteFaults = append(w.hist.WriteFaults, oracles.WriteFault{Part: k, At: w.next()})
	}
	return true
}

// writeFaulted says whether a write of partition k's files failed.
func (w *World) writeFaulted(k oracles.PartKey) bool {
	dir, ok := w.partitionDir(k)
	if !ok {
		// A topic whose create was answered "already exists" on a retry
		// has no known id, so its directory is unknown: any injected write
		// fault may have been its own.
		return len(w.writeFaults) > 0
	}
	return w.writeFaults[dir] > 0
}

// misdirects decides whether a metadata journal write of a replica set
// lands elsewhere in its file. It counts as damage at rest of that
// replica's metadata, so the fault atlas holds: at most f replicas.
func (w *World) misdirects(h *host, req *storage.Request, rng *rand.Rand) bool {
	if !w.cluster() || !h.booted || !w.faulty() || w.knobs.MisdirectPerMille == 0 ||
		!strings.HasPrefix(req.File, "metadata/journal/") || rng.IntN(1000) >= w.knobs.MisdirectPerMille || !w.mayDamageMetadata(h) {
		return false
	}
	h.metaDamaged = true
	w.marks.Hit("sim.disk.write_misdirected")
	w.event("misdirected write %d: %s at %d", h.idx, req.File, req.Offset)
	return true
}

// damageSegment flips one bit of a synced segment of a known partition.
func (w *World) damageSegment(h *host) {
	var cands []string
	for _, p := range h.disk.Files() {
		if strings.HasPrefix(p, "streams/") && strings.HasSuffix(p, ".log") && h.synced(p) {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return
	}
	path := cands[w.rng.IntN(len(cands))]
	k, start, ok := w.segmentOf(path)
	if !ok {
		return
	}
	img, _ := h.disk.File(path)
	pos := w.rng.IntN(len(img.Durable))
	offset := recordAt(img.Durable, uint64(pos), start)
	img.Durable[pos] ^= 1 << w.rng.IntN(8)
	h.disk.PutFile(path, img.Durable)
	w.marks.Hit("sim.disk.segment_damaged")
	w.event("damage %d: %s byte %d (record at offset %d)", h.idx, path, pos, offset)
	if w.cluster() {
		// Peers hold good copies (the atlas): nothing acknowledged may be
		// lost, so no exemption; a read of it may fail until repaired.
		h.dataDamaged = true
		w.clusterDamaged[k] = true
		return
	}
	// In a sealed segment only the offsets up to the next segment may be
	// lost (recovery keeps it and the segments after it, recover.go).
	end, _ := successor(h.disk.Files(), path)
	w.hist.Damages = append(w.hist.Damages, oracles.Damage{Part: k, Offset: offset, End: end, At: w.next()})
}

// damageMetadata flips one bit of a synced metadata file.
func (w *World) damageMetadata(h *host) {
	var cands []string
	for _, p := range h.disk.Files() {
		if strings.HasPrefix(p, "metadata/") && h.synced(p) {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return
	}
	path := cands[w.rng.IntN(len(cands))]
	img, _ := h.disk.File(path)
	pos := w.rng.IntN(len(img.Durable))
	img.Durable[pos] ^= 1 << w.rng.IntN(8)
	h.disk.PutFile(path, img.Durable)
	h.metaDamaged = true
	w.marks.Hit("sim.disk.metadata_damaged")
	w.event("damage %d: %s byte %d", h.idx, path, pos)
	if !w.cluster() { // in a set, the atlas keeps a good copy: nothing may be lost
		w.hist.MetaDamages = append(w.hist.MetaDamages, oracles.MetaDamage{File: path, At: w.next()})
	}
}

// synced: the file is non-empty and has no unsynced writes, so flipping
// the same bit in both of its images is rot at rest, not a lost write.
func (h *host) synced(path string) bool { return h.disk.Synced(path) }

// segmentOf parses streams/<s>/topics/<t>/partitions/<p>/<start>.log.
func (w *World) segmentOf(p string) (oracles.PartKey, uint64, bool) {
	k, ok := w.partOfDir(path.Dir(p))
	start, err := strconv.ParseUint(strings.TrimSuffix(path.Base(p), ".log"), 10, 64)
	return k, start, ok && err == nil
}

// partOfDir parses streams/<s>/topics/<t>/partitions/<p>.
func (w *World) partOfDir(dir string) (oracles.PartKey, bool) {
	f := strings.Split(dir, "/")
	if len(f) != 6 {
		return oracles.PartKey{}, false
	}
	s, err1 := strconv.ParseUint(f[1], 10, 32)
	t, err2 := strconv.ParseUint(f[3], 10, 32)
	p, err3 := strconv.ParseUint(f[5], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil {
		return oracles.PartKey{}, false
	}
	ti := w.catalog.byIDs(uint32(s), uint32(t))
	if ti == nil {
		return oracles.PartKey{}, false
	}
	return oracles.PartKey{Stream: ti.stream, Topic: ti.name, Partition: uint32(p)}, true
}

// recordAt is the base offset of the record holding byte pos of a
// segment, walking record headers from its start; where the walk cannot
// go on, the offset reached so far (conservative: more is exempted).
func recordAt(img []byte, pos, start uint64) uint64 {
	at, offset := uint64(0), start
	for at+batch.HeaderBytes <= uint64(len(img)) {
		h := batch.ParseHeader(img[at:])
		if h.Length < batch.HeaderBytes || at+h.Length > uint64(len(img)) || h.BaseOffset != offset {
			return offset
		}
		if pos < at+h.Length {
			return h.BaseOffset
		}
		at += h.Length
		offset = h.BaseOffset + uint64(h.Count)
	}
	return offset
}

// partitionDir is where partition k lives on disk, once the ids of its
// stream and topic are known.
func (w *World) partitionDir(k oracles.PartKey) (string, bool) {
	s := w.catalog.stream(k.Stream)
	t := w.catalog.topic(k.Stream, k.Topic)
	if s == nil || t == nil || !s.idKnown || !t.idKnown {
		return "", false
	}
	return fmt.Sprintf("streams/%d/topics/%d/partitions/%d", s.id, t.id, k.Partition), true
}
