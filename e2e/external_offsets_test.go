package e2e

import (
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// An external group (kind 3) stores offsets without joining anything and past
// the partition's range; a plain consumer may not; both survive a restart.
// covers CGRP-2, CGRP-3, CGRP-4
func TestExternalGroupOffsets(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "kafka", "events", 1)
	external := wire.Consumer{Kind: wire.ConsumerKindExternalGroup, ID: wire.NamedID("gateway-group")}
	const far = 1_000_000

	if err := c.StoreOffset(external, stream, topic, 0, far); err != nil {
		t.Fatalf("external offset on an empty partition: %v", err)
	}
	err := c.StoreOffset(client.Consumer(7), stream, topic, 0, far)
	wantCode(t, "plain consumer past the range", err, wire.InvalidOffset)

	s.stop()
	s = s.restart()
	got, found, err := s.root().GetOffset(external, stream, topic, 0)
	if err != nil || !found || got.StoredOffset != far {
		t.Fatalf("after restart: offset %+v found %v err %v, want %d", got, found, err, far)
	}
}
