package node

import (
	"testing"

	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// covers SESS-28
// A partition group's image carries its receipts and committed capacity
// (a checkpoint and a state transfer keep them); an image written before
// receipts reads as an empty table, and a cut receipts section is refused.
func TestGroupImageReceipts(t *testing.T) {
	r := partition.NewReceipts()
	r.CommitLimit(5)
	a := partition.Attempt{Client: wire.U128{Lo: 9, Hi: 1}, Session: 4, Request: 2, Fingerprint: 77}
	r.Record(a, 40)
	offs := []partition.StoredOffset{{Kind: partition.Consumer, ID: 3, Offset: 11}}
	img := encodeGroupImage(50, offs, r, partition.NewProducers())
	got, err := decodeGroupImage(img)
	if err != nil || got.next != 50 || len(got.offsets) != 1 || got.receipts.Limit() != 5 {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	if found, base := got.receipts.Check(a, 5, 0); found != partition.FoundCommitted || base != 40 {
		t.Fatalf("receipt after the image: %d at %d", found, base)
	}
	old := img[:groupImageHeaderBytes+groupImageEntryBytes]
	if got, err := decodeGroupImage(old); err != nil || got.receipts.Len() != 0 || got.receipts.Limit() != 0 {
		t.Fatalf("an image without receipts: %+v, %v", got, err)
	}
	if _, err := decodeGroupImage(img[:len(img)-1]); err == nil {
		t.Fatal("a cut receipts section decoded")
	}
}

// A send prepare's prefix round-trips, and unknown flags are refused.
func TestSessionAppendBody(t *testing.T) {
	a := partition.Attempt{Client: wire.U128{Lo: 1, Hi: 2}, Session: 3, Request: 4, Fingerprint: 5}
	p := vsr.Prepare{ClientLo: 1, ClientHi: 2, Request: 4, Body: encodeSessionAppend(a, 7, true, []byte("rec"))}
	s, ok := decodeSessionAppend(&p)
	if !ok || s.attempt != a || s.capacity != 7 || !s.again || string(s.rec) != "rec" {
		t.Fatalf("decoded %+v %v", s, ok)
	}
	p.Body[20] = 2
	if _, ok := decodeSessionAppend(&p); ok {
		t.Fatal("unknown flags decoded")
	}
}
