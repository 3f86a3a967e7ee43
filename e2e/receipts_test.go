package e2e

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// covers SESS-16, SESS-18, SESS-2
// A send whose reply is lost with its connection (closed before the reply
// was read) is resent, byte for byte, on a new connection bound to the same
// session (BindSession): it gets the base offset of its first result and
// the partition holds its messages once. Before receipts it landed twice
// (issue 17: base offset 0, then 1).
func TestSendResentAfterLostReplyLandsOnce(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	admin := s.root()
	stream, topic := createStreamTopic(t, admin, "receipts", "events", 1)
	const clientID = 0x5e55_0001
	first := rawDial(t, s.addr)
	session := rawLogin(t, first, clientID)

	msgs := make([]batch.Message, 2)
	for i := range msgs {
		msgs[i] = batch.Message{ID: messageID(0x17, uint64(i)), OriginTimestamp: uint64(time.Now().UnixMicro()), Payload: []byte("once")}
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		t.Fatalf("batch: %s", code.Name())
	}
	var body wire.Writer
	wire.SendMessagesRequest{StreamID: stream, TopicID: topic,
		Partitioning:  wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0},
		MessagesCount: uint32(len(msgs)), Batch: rec}.Encode(&body)
	h := wire.RequestHeader{Client: wire.U128{Lo: clientID}, Operation: wire.OpSendMessages, Request: 1, Session: session}
	send := append(h.Bytes(len(body.Buf)), body.Buf...)

	if _, err := first.Write(send); err != nil {
		t.Fatalf("send: %v", err)
	}
	// The send is committed (a poll sees it), then its reply is dropped
	// unread with the connection.
	deadline := time.Now().Add(requestTimeout)
	for len(pollAll(t, admin, stream, topic, 0)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first send never landed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.Close()

	again := rawDial(t, s.addr)
	var proof []byte
	proof = binary.LittleEndian.AppendUint64(proof, clientID)
	proof = binary.LittleEndian.AppendUint64(proof, 0)
	proof = binary.LittleEndian.AppendUint64(proof, session)
	bind := wire.RequestHeader{Client: wire.U128{Lo: clientID}, Operation: wire.OpNonReplicated,
		NRCode: wire.CmdBindSession, Request: 1, Session: session}
	if _, err := again.Write(append(bind.Bytes(len(proof)), proof...)); err != nil {
		t.Fatalf("bind: %v", err)
	}
	if r := readReply(t, again); r.Status != wire.OK {
		t.Fatalf("bind: status %d", r.Status)
	}
	if _, err := again.Write(send); err != nil {
		t.Fatalf("resend: %v", err)
	}
	r, payload := readReplyBody(t, again)
	confs, code := wire.DecodeSendConfirmations(payload)
	if r.Status != wire.OK || code != wire.OK || len(confs) != 1 || confs[0].BaseOffset != 0 {
		t.Fatalf("resend: status %d, confirmations %+v (%s); want base offset 0", r.Status, confs, code.Name())
	}
	if got := pollAll(t, admin, stream, topic, 0); len(got) != len(msgs) {
		t.Fatalf("the partition holds %d messages, want %d (the batch once)", len(got), len(msgs))
	}
}
