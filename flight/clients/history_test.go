package clients

import (
	"strings"
	"testing"

	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// observer is what a replay feeds (flight.ClientObserver).
type observer interface {
	Frame(bus.ClientFrame)
	Reply(bus.Reply)
}

// tape keeps the bytes of a conversation, as fuzz seeds.
type tape struct{ frames, replies [][]byte }

func (t *tape) Frame(f bus.ClientFrame) { t.frames = append(t.frames, f.Frame) }
func (t *tape) Reply(r bus.Reply) {
	var b []byte
	for _, p := range r.Parts {
		b = append(b, p...)
	}
	t.replies = append(t.replies, b)
}

// historyClient plays one connection's requests and the node's replies
// into a History, as a replay feeds it.
type historyClient struct {
	t       *testing.T
	c       observer
	conn    bus.ConnID
	request uint64
}

func (hc *historyClient) request1(op wire.Operation, nr wire.Command, body []byte) wire.RequestHeader {
	hc.request++
	h := wire.RequestHeader{Client: wire.U128{Lo: uint64(hc.conn)}, Request: hc.request, Operation: op, Session: 1, NRCode: nr}
	frame := make([]byte, wire.HeaderSize+len(body))
	h.Put(frame, len(body))
	copy(frame[wire.HeaderSize:], body)
	hc.c.Frame(bus.ClientFrame{Conn: hc.conn, Frame: frame})
	return h
}

// record is a batch record of one message per id.
func (hc *historyClient) record(ids []byte) []byte {
	var msgs []batch.Message
	for _, id := range ids {
		msgs = append(msgs, batch.Message{ID: [16]byte{id}, Payload: []byte{id}})
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		hc.t.Fatalf("build: %s", code.Name())
	}
	return rec
}

// send sends one batch of ids to partition 0 of stream 1, topic 1, and
// the node acknowledges it at base.
func (hc *historyClient) send(base uint64, ids ...byte) {
	rec := hc.record(ids)
	var w wire.Writer
	wire.SendMessagesRequest{StreamID: wire.NumericID(1), TopicID: wire.NumericID(1), MessagesCount: uint32(len(ids)), Batch: rec,
		Partitioning: wire.Partitioning{Kind: wire.PartitioningPartitionID}}.Encode(&w)
	h := hc.request1(wire.OpSendMessages, 0, w.Buf)
	var conf wire.Writer
	wire.EncodeSendConfirmations(&conf, []wire.SendConfirmation{{StreamID: 1, TopicID: 1, BaseOffset: base}})
	hc.c.Reply(bus.Reply{Conn: hc.conn, Parts: wire.RawFrame(wire.ReplyTo(h), conf.Buf)})
}

// poll polls partition 0 from offset 0; the node answers with the
// messages ids at offsets 0.. and current offset current.
func (hc *historyClient) poll(current uint64, ids ...byte) {
	var w wire.Writer
	wire.PollMessagesRequest{Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(1)},
		StreamID: wire.NumericID(1), TopicID: wire.NumericID(1), Partition: wire.OptionalPartition{Given: true},
		Strategy: wire.PollingStrategy{Kind: wire.PollOffset}, Count: 100}.Encode(&w)
	h := hc.request1(wire.OpNonReplicated, wire.CmdPollMessages, w.Buf)
	rec := hc.record(ids)
	pre := wire.PollPrefix{CurrentOffset: current, MessagesCount: uint32(len(ids))}.Bytes()
	hc.c.Reply(bus.Reply{Conn: hc.conn, Parts: wire.RawFrame(wire.ReplyTo(h), pre, rec)})
}

// The one-node oracles of a -check replay judge the history rebuilt from
// request frames and reply frames: two clients whose sends are acknowledged
// at distinct offsets and read back pass; the same offset acknowledged to
// both is found by the linearizability, offsets and offset-reuse oracles,
// which name
// the partition and the two batches.
func TestReplayHistoryJudgesClientFrames(t *testing.T) {
	for _, tc := range []struct {
		name      string
		secondAt  uint64
		violation map[string]string
	}{
		{"distinct offsets", 2, nil},
		{"an offset acknowledged twice", 0, map[string]string{"linearizable": "1/1/0", "offsets": "offset 0 acknowledged for batch 1", "offset-reuse": "offset 0 acknowledged for batch 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewHistory()
			a, b := &historyClient{t: t, c: c, conn: 1}, &historyClient{t: t, c: c, conn: 2}
			a.send(0, 10, 11)
			b.send(tc.secondAt, 20, 21)
			a.poll(3, 10, 11, 20, 21)
			if s := c.Stats(); s.Appends != 2 || s.ReadsWithMessages != 1 {
				t.Fatalf("history %+v", s)
			}
			for _, v := range c.Judge() {
				want, bad := tc.violation[v.Oracle]
				if bad != (v.Result != "ok") || !strings.Contains(v.Result, want) {
					t.Errorf("oracle %s: %s (want violation %t %q)", v.Oracle, v.Result, bad, want)
				}
			}
		})
	}
}

// FuzzHistory: any request and reply bytes a dump may hold are judged or
// ignored, never a panic.
func FuzzHistory(f *testing.F) {
	tp := &tape{}
	hc := &historyClient{t: &testing.T{}, c: tp, conn: 1}
	hc.send(0, 1, 2)
	hc.poll(1, 1, 2)
	for i := range tp.frames {
		f.Add(tp.frames[i], tp.replies[i])
	}
	f.Fuzz(func(t *testing.T, request, reply []byte) {
		c := NewHistory()
		c.Frame(bus.ClientFrame{Conn: 1, Frame: request})
		c.Reply(bus.Reply{Conn: 1, Parts: [][]byte{reply}})
		c.Judge()
	})
}
