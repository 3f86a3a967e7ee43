package wire

// PartitionRoutes (code 105, NR) tells a client which replica is the primary
// of each partition of a topic (PLACE-20), so it can send a partition's
// requests there and refresh on NotPrimary (89). The public documents give no
// layout; ours (DESIGN.md, "Wire layouts we chose") is
//
//	request: [stream Identifier][topic Identifier]   (a TopicRef)
//	reply:   [count u32], then count × [partition_id u32][primary replica_id u8][view u32]
//
// Routes are in ascending partition id order. view is the partition's
// consensus view: a client that keeps routes from two answers trusts the one
// with the higher view.

// PartitionRoute is the route of one partition.
type PartitionRoute struct {
	PartitionID uint32
	Primary     uint8 // replica_id of the primary
	View        uint32
}

// partitionRouteBytes is the encoded size of one route.
const partitionRouteBytes = 4 + 1 + 4

// EncodePartitionRoutes writes the reply body.
func EncodePartitionRoutes(w *Writer, routes []PartitionRoute) {
	w.U32(uint32(len(routes)))
	for _, rt := range routes {
		w.U32(rt.PartitionID)
		w.U8(rt.Primary)
		w.U32(rt.View)
	}
}

// DecodePartitionRoutes reads a reply body (client side). A count the body
// cannot hold, a short body or trailing bytes are 3.
func DecodePartitionRoutes(body []byte) ([]PartitionRoute, Code) {
	r := NewReader(body)
	count := r.U32()
	if r.Err() != OK || uint64(count)*partitionRouteBytes != uint64(r.Len()) {
		return nil, InvalidCommand
	}
	routes := make([]PartitionRoute, 0, count)
	for range count {
		routes = append(routes, PartitionRoute{PartitionID: r.U32(), Primary: r.U8(), View: r.U32()})
	}
	if code := finish(r); code != OK {
		return nil, code
	}
	return routes, OK
}
