package e2e

import (
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// A send over TCP whose user headers are not a valid TLV block is refused
// (MSG-15) and nothing of it is stored; valid headers still go through.
//
// covers MSG-15, MSG-14
func TestMalformedUserHeadersRefusedOverTCP(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "headers-stream", "headers-topic", 1)
	part0 := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0}

	bad := []client.Message{{ID: messageID(0xB0, 1), Payload: []byte("p"), RawHeaders: []byte{0xff, 0xff, 0xff}}}
	_, err := c.SendMessages(stream, topic, part0, bad)
	wantCode(t, "send with headers ff ff ff", err, wire.InvalidHeaderKey)

	good := []client.Message{{ID: messageID(0xB0, 2), Payload: []byte("p"),
		Headers: map[string]client.HeaderValue{"k": {Kind: wire.KindString, Value: []byte("v")}}}}
	if _, err := c.SendMessages(stream, topic, part0, good); err != nil {
		t.Fatalf("send with valid headers: %v", err)
	}
	got := pollAll(t, c, stream, topic, 0)
	if len(got) != 1 || got[0].Offset != 0 || string(got[0].Payload) != "p" {
		t.Fatalf("polled %+v, want only the valid message at offset 0", got)
	}
}
