package node_test

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

func init() {
	commands["produce"] = cmdProduce
	commands["producer-id"] = cmdProducerID
}

// produce c stream topic producer=ID [epoch=E] seq=S count=N [partition=P]:
// send a fresh batch of N messages as producer ID's batch from sequence S
// (SendProducerMessages); a resend is a produce with the same seq and count.
func cmdProduce(w *world, a *args) {
	c := w.clientOf(a)
	count := int(a.u64("count", 1))
	b, rec := w.batchRecord(a, count, 0)
	q := wire.SendProducerMessagesRequest{ProducerID: a.u64("producer", 0), Epoch: a.u32("epoch", 0),
		FirstSequence: a.u64("seq", 0), Send: wire.SendMessagesRequest{
			StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2)),
			Partitioning:  wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: a.u32("partition", 0)},
			MessagesCount: uint32(count), Batch: rec,
		}}
	a.done(3)
	w.call(c, "produce", wire.CmdSendProducerMessages, encode(q.Encode), func(_ *world, _ *simClient, p []byte) string {
		confs, code := wire.DecodeSendConfirmations(p)
		if code != wire.OK || len(confs) != 1 {
			return fmt.Sprintf("malformed send confirmation (%d bytes)", len(p))
		}
		return fmt.Sprintf("ok b%d partition=%d base_offset=%d", b, confs[0].PartitionID, confs[0].BaseOffset)
	})
	w.finish()
}

// producer-id c stream topic: NextProducerId.
func cmdProducerID(w *world, a *args) {
	c := w.clientOf(a)
	a.done(3)
	body := encode(wire.TopicRef{StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2))}.Encode)
	w.call(c, "producer-id", wire.CmdNextProducerID, body, func(_ *world, _ *simClient, p []byte) string {
		id, code := wire.DecodeProducerID(p)
		if code != wire.OK {
			return fmt.Sprintf("malformed producer id (%d bytes)", len(p))
		}
		return fmt.Sprintf("ok producer epoch=%d nonzero=%v", id.Epoch, id.ID != 0)
	})
	w.finish()
}
