package sim

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/oracles"
)

// Marks of the truncation fault: a sealed segment file cut short at rest,
// and a boot that kept one (core/node, when recovery reports it).
const (
	markSealedTruncated = "sim.disk.sealed_segment_truncated"
	markIndexTruncated  = "sim.disk.sealed_index_truncated"
	markDamagedKept     = "node.partition.damaged_segment_kept"
)

// truncateSealed cuts a synced sealed segment's .log or .index of a
// standalone node short at rest (issue 11: a truncated sealed segment made
// a restart delete the later segments and acknowledge offsets twice). A
// segment is sealed when a later one exists in its directory. The .log's
// lost offsets, from the record the cut lands in to the next segment's
// start, are a bounded damage: they may be lost, nothing else may, and no
// offset may be acknowledged again. A cut .index loses nothing.
func (w *World) truncateSealed(h *host) {
	var cands []string
	succ := map[string]uint64{} // a sealed file -> its successor's start
	files := h.disk.Files()
	for _, p := range files {
		if next, ok := successor(files, p); ok && h.synced(p) {
			succ[p] = next
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return
	}
	p := cands[w.rng.IntN(len(cands))]
	img, _ := h.disk.File(p)
	cut := uint64(w.rng.IntN(len(img.Durable)))
	h.disk.PutFile(p, img.Durable[:cut])
	if strings.HasSuffix(p, ".index") {
		w.marks.Hit(markIndexTruncated)
		w.event("truncate %d: %s to %d bytes", h.idx, p, cut)
		return
	}
	k, start, ok := w.segmentOf(p)
	if !ok {
		return
	}
	lost := recordAt(img.Durable, cut, start)
	w.marks.Hit(markSealedTruncated)
	w.event("truncate %d: %s to %d bytes (offsets %d..%d lost)", h.idx, p, cut, lost, succ[p])
	w.hist.Damages = append(w.hist.Damages, oracles.Damage{Part: k, Offset: lost, End: succ[p], At: w.next()})
}

// hole is the bounded damage of partition k that lost offset o (any one
// when the poll's start is unknown), or nil.
func (w *World) hole(k oracles.PartKey, o uint64, anywhere bool) *oracles.Damage {
	for i, d := range w.hist.Damages {
		if d.Part == k && d.End > 0 && (anywhere || o >= d.Offset && o < d.End) {
			return &w.hist.Damages[i]
		}
	}
	return nil
}

// finalSkipHole goes on with the read-back after the offsets a bounded
// damage lost, which stand as oracles.Lost in the final log.
func (w *World) finalSkipHole(o *op) {
	f := w.clients[0].final
	d := w.hole(o.part, o.offset, false)
	if f == nil || d == nil || f.cur >= len(f.parts) || f.parts[f.cur] != o.part || uint64(len(f.acc)) != o.offset {
		return
	}
	w.marks.Hit("sim.final.lost_range_skipped")
	for uint64(len(f.acc)) < d.End {
		f.acc = append(f.acc, oracles.Lost)
	}
	f.failures = 0
}

// successor is the start of the segment after the one file p belongs to,
// among files (sorted: a directory's segments ascend); false when p is not
// a segment file or its segment is the last (active) one.
func successor(files []string, p string) (uint64, bool) {
	start, _, ok := segmentFile(p)
	if !ok {
		return 0, false
	}
	i, _ := slices.BinarySearch(files, p)
	for _, q := range files[i:] {
		if path.Dir(q) != path.Dir(p) {
			break
		}
		if next, ext, ok := segmentFile(q); ok && ext == ".log" && next > start {
			return next, true
		}
	}
	return 0, false
}

// segmentFile parses the name of a partition's segment file.
func segmentFile(p string) (start uint64, ext string, ok bool) {
	if !strings.HasPrefix(p, "streams/") {
		return 0, "", false
	}
	name := path.Base(p)
	ext = path.Ext(name)
	if ext != ".log" && ext != ".index" {
		return 0, "", false
	}
	start, err := strconv.ParseUint(strings.TrimSuffix(name, ext), 10, 64)
	return start, ext, err == nil
}
