package e2e

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

// A replication factor above the node count is refused with 2018
// (InvalidReplicationFactor): on a node of one, 2 is too many and 1 fits.
// covers RES-31
func TestReplicationFactorAboveNodeCountRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	st, err := c.CreateStream("rf")
	if err != nil {
		t.Fatal(err)
	}
	stream := wire.NumericID(st.ID)
	_, err = c.CreateTopic(stream, "two", 1, wire.Options{{Key: wire.OptReplicationFactor, Kind: wire.KindUint8, Value: []byte{2}}})
	wantCode(t, "replication_factor 2 on one node", err, wire.InvalidReplicationFactor)
	if _, err := c.CreateTopic(stream, "one", 1, wire.Options{{Key: wire.OptReplicationFactor, Kind: wire.KindUint8, Value: []byte{1}}}); err != nil {
		t.Fatalf("replication_factor 1 on one node: %v", err)
	}
}
