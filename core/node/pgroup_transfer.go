package node

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// A replica whose group fell behind what its peers' journals hold installs
// a peer's checkpoint: vsr fetches the image (the log length and the
// consumer offsets), then the node fetches the messages its own log lacks
// up to that length, from the offset its log reaches: the segments it
// holds are kept (VSR-19). Only then does the checkpoint become its own.

// Bounds of the message fetch of a state transfer.
const (
	// logFetchRetryTicks: an unanswered fetch is asked again, of the next
	// peer, after this long.
	logFetchRetryTicks = 100
	// groupImageOffsetsMax bounds the consumer offsets an image may carry.
	groupImageOffsetsMax  = 1 << 20
	groupImageHeaderBytes = 12
	groupImageEntryBytes  = 13
)

// pgroupInstall is a state transfer whose messages are being fetched, or
// a refetch of messages the log lost (in is nil).
type pgroupInstall struct {
	in      *vsr.Install
	next    uint64 // the log length the checkpoint names
	offsets []partition.StoredOffset
	// receipts are the checkpoint's send receipts, the group's once installed.
	receipts  *partition.Receipts
	producers *partition.Producers // the checkpoint's producer table
	source    uint8
	askedAt   uint64
	lost      bool // a group of one lost them: nothing to fetch from
}

// encodeGroupImage: [log length u64][count u32], then count × [kind u8]
// [consumer u32][offset u64], then the send receipts (Receipts.AppendImage,
// its length in its header), then the producer table
// (partition.Producers.AppendImage, the rest). An image written before
// either was kept ends after the offsets: both tables are empty.
func encodeGroupImage(next uint64, offs []partition.StoredOffset, receipts *partition.Receipts, producers *partition.Producers) []byte {
	b := make([]byte, 0, groupImageHeaderBytes+groupImageEntryBytes*len(offs))
	b = binary.LittleEndian.AppendUint64(b, next)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(offs)))
	for _, o := range offs {
		b = append(b, byte(o.Kind))
		b = binary.LittleEndian.AppendUint32(b, o.ID)
		b = binary.LittleEndian.AppendUint64(b, o.Offset)
	}
	return producers.AppendImage(receipts.AppendImage(b))
}

// groupImage is a decoded partition group checkpoint image.
type groupImage struct {
	next      uint64
	offsets   []partition.StoredOffset
	receipts  *partition.Receipts
	producers *partition.Producers
}

func decodeGroupImage(b []byte) (groupImage, error) {
	if len(b) < groupImageHeaderBytes {
		return groupImage{}, errors.New("short partition image")
	}
	count := binary.LittleEndian.Uint32(b[8:])
	end := groupImageHeaderBytes + uint64(count)*groupImageEntryBytes
	if count > groupImageOffsetsMax || uint64(len(b)) < end {
		return groupImage{}, errors.New("partition image length does not match its offsets")
	}
	img := groupImage{next: binary.LittleEndian.Uint64(b), receipts: partition.NewReceipts(), producers: partition.NewProducers()}
	offs, err := decodeImageOffsets(b[groupImageHeaderBytes:end], count)
	if err != nil {
		return groupImage{}, err
	}
	img.offsets = offs
	if err := img.decodeTables(b[end:]); err != nil {
		return groupImage{}, fmt.Errorf("partition image: %w", err)
	}
	return img, nil
}

// decodeTables reads the receipts and producer sections after the offsets;
// an image that ends there has both empty.
func (img *groupImage) decodeTables(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	n, ok := partition.ReceiptsImageLen(b)
	if !ok {
		return errors.New("short receipts section")
	}
	var err error
	if img.receipts, err = partition.DecodeReceiptsImage(b[:n]); err != nil {
		return err
	}
	if len(b) > n {
		if img.producers, err = partition.DecodeProducersImage(b[n:]); err != nil {
			return err
		}
	}
	return nil
}

func decodeImageOffsets(b []byte, count uint32) ([]partition.StoredOffset, error) {
	offs := make([]partition.StoredOffset, count)
	for i := range offs {
		e := b[i*groupImageEntryBytes:]
		kind := partition.OffsetKind(e[0])
		if kind < partition.Consumer || kind > partition.External {
			return nil, errors.New("partition image holds an unknown offset kind")
		}
		offs[i] = partition.StoredOffset{Kind: kind, ID: binary.LittleEndian.Uint32(e[1:]), Offset: binary.LittleEndian.Uint64(e[5:])}
	}
	return offs, nil
}

// refetch fetches the messages from the end of the log up to where the
// next committed append starts: damage at rest cut them at boot, after a
// checkpoint released the journal that held them. A replicated partition
// serves again only once it has them from a peer (STOR-42).
func (n *Node) refetch(g *pgroup) {
	if g.host.Replica().Count() == 1 {
		// Its only member lost them: no peer holds a copy. The group stays
		// held (its requests get 58) rather than fetch from itself.
		g.installing = &pgroupInstall{next: g.nextOffset, source: n.cfg.Replica, lost: true}
		n.logf("partition group %s: the log ends at %d, its checkpoint at %d, and no other member holds the messages",
			g.dir(), n.partitions[g.key].NextOffset(), g.nextOffset)
		return
	}
	source := g.global(g.peerFrom(g.host.Replica().Primary()))
	g.installing = &pgroupInstall{next: g.nextOffset, source: source}
	n.logf("partition group %s: the log ends at %d, its checkpoint at %d: fetching the messages from replica %d",
		g.dir(), n.partitions[g.key].NextOffset(), g.nextOffset, source)
	n.continueGroupInstall(g)
}

// peerFrom is the group's replica r, or the one after it when r is this
// replica.
func (g *pgroup) peerFrom(r uint8) uint8 {
	if r == g.host.Replica().ID() {
		return (r + 1) % g.host.Replica().Count()
	}
	return r
}

// startGroupInstall begins installing a state transfer the replica fetched.
func (n *Node) startGroupInstall(g *pgroup, in *vsr.Install) {
	img, err := decodeGroupImage(in.Image)
	if err != nil {
		// The replica checked the bytes against the checkpoint's checksum:
		// a peer served a bad image, a bug, not a fault.
		n.fatal("partition group %s: state transfer image of op %d is invalid: %v", g.dir(), in.Checkpoint.Op, err)
		return
	}
	g.installing = &pgroupInstall{in: in, next: img.next, offsets: img.offsets, receipts: img.receipts, producers: img.producers, source: g.global(in.Source)}
	n.logf("partition group %s: installing checkpoint op %d (%d messages) from replica %d", g.dir(), in.Checkpoint.Op, img.next, in.Source)
	n.continueGroupInstall(g)
}

// continueGroupInstall asks for the next messages, or finishes once the
// log holds the checkpoint's length and no checkpoint of its own is on
// its way (its image file would be overwritten).
func (n *Node) continueGroupInstall(g *pgroup) {
	in, log := g.installing, n.partitions[g.key]
	if !g.logReady || in.lost {
		return // the log's recovery continues it; a lost log stays held
	}
	if log.NextOffset() < in.next {
		in.askedAt = n.now.Ticks
		n.ready.Peers = append(n.ready.Peers, PeerMessage{Group: g.id(), Msg: vsr.Message{
			Command: vsr.CmdRequestLogData, From: n.cfg.Replica, To: in.source, Offset: log.NextOffset(), Op: in.next}})
		return
	}
	if in.in == nil {
		g.installing = nil
		n.logf("partition group %s: fetched the lost messages up to %d", g.dir(), in.next)
		n.applyGroup(g)
		return
	}
	if g.host.Checkpointing() {
		return // retried when it is durable (tickGroupInstall)
	}
	n.applyImageOffsets(g, log, in)
	g.host.Install(in.in.Checkpoint, in.in.Image)
}

// tickGroupInstall asks another peer when a fetch went unanswered, and
// retries a finish that waited for a checkpoint.
func (n *Node) tickGroupInstall(g *pgroup) {
	in := g.installing
	if p := g.host.Pending(); in == nil || in.lost || !g.logReady || p != nil && p.Install {
		return
	}
	if n.partitions[g.key].NextOffset() >= in.next {
		n.continueGroupInstall(g)
		return
	}
	if n.now.Ticks-in.askedAt >= logFetchRetryTicks {
		l, _ := g.local(in.source)
		in.source = g.global(g.peerFrom((l + 1) % g.host.Replica().Count()))
		n.continueGroupInstall(g)
	}
}

// coveredOp is the op whose checkpoint must wait for the fetched writes.
func (in *pgroupInstall) coveredOp(g *pgroup) uint64 {
	if in.in == nil {
		return g.applied
	}
	return in.in.Checkpoint.Op
}

// applyImageOffsets makes the stored offsets those of the image: every
// write syncs before the checkpoint may become durable.
func (n *Node) applyImageOffsets(g *pgroup, log *partition.Log, in *pgroupInstall) {
	for _, o := range log.Offsets() {
		if !slices.ContainsFunc(in.offsets, func(i partition.StoredOffset) bool { return i.Kind == o.Kind && i.ID == o.ID }) {
			if token, ok := log.DeleteOffset(o.Kind, o.ID); ok {
				g.inflight[token] = in.in.Checkpoint.Op
			}
		}
	}
	for _, o := range in.offsets {
		g.inflight[log.StoreOffset(o.Kind, o.ID, o.Offset, true)] = in.in.Checkpoint.Op
	}
}

// groupInstalled: the installed checkpoint is durable and the replica
// resumed from it; so does the group.
func (n *Node) groupInstalled(g *pgroup, ck *group.Checkpoint) {
	next, producers := g.installing.next, g.installing.producers
	g.receipts = g.installing.receipts
	g.installing = nil
	g.applied, g.appliedChecksum, g.nextOffset, g.producers = ck.CP.Op, ck.CP.Checksum, next, producers
	for len(g.held) > 0 && g.held[0].Op <= ck.CP.Op {
		g.held = g.held[1:] // the checkpoint covers them
	}
	g.unsyncedSkip = false
	n.logf("partition group %s: installed state transfer of checkpoint op %d", g.dir(), ck.CP.Op)
}

// serveLogData answers a peer's fetch from this replica's log, with whole
// batch records: a poll from the offset asked for, of the messages up to
// the length asked for (both batch boundaries of every replica's log).
func (n *Node) serveLogData(g *pgroup, m vsr.Message) {
	log := n.partitions[g.key]
	if m.Op <= m.Offset || m.Op-m.Offset > uint64(^uint32(0)) || log.CanPoll() != wire.OK || len(n.polls) >= pollsInFlightMax {
		return // the peer asks again
	}
	n.pollSeq++
	n.polls[n.pollSeq] = pendingPoll{part: g.key, fetch: &logFetch{group: g.id(), to: m.From, offset: m.Offset}}
	log.Poll(n.pollSeq, partition.StrategyOffset, m.Offset, uint32(m.Op-m.Offset))
	n.drainEvents(g.key)
}

// logFetch is a poll that answers a peer's fetch, not a client.
type logFetch struct {
	group  GroupID
	to     uint8
	offset uint64
}

func (n *Node) answerLogFetch(f *logFetch, ev partition.PollDone) {
	if ev.Code != wire.OK || ev.MessagesCount == 0 {
		return
	}
	var data []byte
	for _, r := range ev.Records {
		data = append(data, r...)
	}
	n.ready.Peers = append(n.ready.Peers, PeerMessage{Group: f.group, Msg: vsr.Message{
		Command: vsr.CmdLogData, From: n.cfg.Replica, To: f.to, Offset: f.offset, Data: data}})
}

// onLogData appends the records a peer sent for the install under way.
func (n *Node) onLogData(g *pgroup, m vsr.Message) {
	in, log := g.installing, n.partitions[g.key]
	if in == nil || !g.logReady || m.Offset != log.NextOffset() {
		return
	}
	for data := m.Data; len(data) > 0; {
		h, code := batch.Validate(data[:min(len(data), recordLength(data))])
		if code != wire.OK || h.BaseOffset != log.NextOffset() || h.BaseOffset+uint64(h.Count) > in.next {
			n.logf("partition group %s: refusing fetched messages at offset %d: %s", g.dir(), log.NextOffset(), code.Name())
			break
		}
		rec := slices.Clone(data[:h.Length])
		token, _ := log.AppendCommitted(rec, h.BaseTimestamp, true)
		g.inflight[token] = in.coveredOp(g)
		data = data[h.Length:]
	}
	n.continueGroupInstall(g)
}

// recordLength is the length a record's header claims, or the bytes left.
func recordLength(b []byte) int {
	if len(b) < batch.HeaderBytes {
		return len(b)
	}
	return int(min(batch.ParseHeader(b).Length, uint64(len(b))))
}
