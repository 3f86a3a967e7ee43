package main

import "github.com/iggygo/iggy/adapters/config"

// rackIndexes numbers the roster's racks in roster order and gives each
// replica id its rack's number (PLACE-17), or nil when the roster names no
// rack. Configuration refuses a roster that names racks on some nodes only
// (PLACE-18), so every entry has one here or none does.
func rackIndexes(nodes []config.ClusterNode) []uint8 {
	if len(nodes) == 0 || nodes[0].Rack == "" {
		return nil
	}
	number := map[string]uint8{}
	racks := make([]uint8, len(nodes))
	for _, n := range nodes {
		r, ok := number[n.Rack]
		if !ok {
			r = uint8(len(number))
			number[n.Rack] = r
		}
		racks[n.ReplicaID] = r
	}
	return racks
}
