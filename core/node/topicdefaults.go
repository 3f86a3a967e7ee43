package node

import "github.com/iggygo/iggy/wire"

// replicationFactorAll is the word a topic on every replica reports.
const replicationFactorAll = "all"

// deriveReplicationFactor fills in cluster.default_replication_factor for a
// topic created without replication_factor: the topic takes it, and reads
// report it as a derived option (RES-33), the number as the catalog's Uint8
// or "all" (0), which no Uint8 can carry, as a String.
func (n *Node) deriveReplicationFactor(a *wire.AdmittedOptions, t *wire.TopicOptions) {
	if _, sent := a.Explicit.Get(wire.OptReplicationFactor); sent {
		return
	}
	factor := n.cfg.DefaultReplicationFactor
	o := wire.Option{Key: wire.OptReplicationFactor, Kind: wire.KindUint8, Value: []byte{factor}}
	if factor == 0 {
		o.Kind, o.Value = wire.KindString, []byte(replicationFactorAll)
	}
	a.Derived = append(a.Derived, o).Sorted()
	t.ReplicationFactor = factor
}
