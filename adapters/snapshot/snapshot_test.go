package snapshot

import (
	"testing"

	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// An archive of every type offers the flight recorder only the room it has
// left, and a part that fills that room still makes a whole archive (a
// 64 MiB ring once made the archive fail).
func TestArchiveLeavesRoomForTheFlightDump(t *testing.T) {
	var offered int
	src := Sources{SystemPath: t.TempDir(), FlightDump: func(room int) (string, []byte) {
		offered = room
		return "flight_recorder.trace", make([]byte, room)
	}}
	req := compute.Request{ID: 1, Kind: compute.KindSnapshotArchive, Compression: wire.SnapshotCompressionStored,
		Types: []uint8{wire.SnapshotTypeAll}}
	res := Build(req, src)
	if res.Code != 0 || offered <= 0 || offered >= archiveBytesMax || len(res.Data) > archiveBytesMax {
		t.Fatalf("archive: code %d, %d bytes, the flight dump offered %d of %d", res.Code, len(res.Data), offered, archiveBytesMax)
	}
}
