package partition

import (
	"bytes"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// covers IDEM-11
// The table a checkpoint image carries is the table: a resend of a kept
// batch is answered the same from the decoded copy, and its image is the
// same bytes (every replica's image of the same ops is equal).
func TestProducerImageRoundTrip(t *testing.T) {
	p := NewProducers()
	for i := range uint64(8) {
		p.Record(pb(7, 1, i*2, 2), 50+i*2, 1000+i)
	}
	p.Record(pb(3, 0, 0, 1), 9, 900)
	img := p.AppendImage(nil)
	q, err := DecodeProducersImage(img)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(q.AppendImage(nil), img) {
		t.Fatal("image of the decoded table differs")
	}
	if v := q.Check(pb(7, 1, 14, 2), 2000); !v.Dup || v.Base != 64 {
		t.Fatalf("resend of the last batch from the decoded table: %+v", v)
	}
	if v := q.Check(pb(7, 1, 16, 1), 2000); v.Code != wire.OK || v.Dup {
		t.Fatalf("next batch from the decoded table: %+v", v)
	}
	for _, bad := range [][]byte{nil, img[:len(img)-1], append(bytes.Clone(img), 0)} {
		if _, err := DecodeProducersImage(bad); err == nil {
			t.Fatalf("image of %d bytes accepted", len(bad))
		}
	}
}

// covers IDEM-4, IDEM-8
// A replica set's primary counts the producer batches of ops not applied
// yet as pending: a resend of one is 57, the next sequence follows them,
// and a newer epoch waits for them; the table itself does not change.
func TestProducerCheckAhead(t *testing.T) {
	p := NewProducers()
	p.Record(pb(1, 0, 0, 2), 0, 10)
	before := p.AppendImage(nil)
	ahead := []ProducerBatch{pb(1, 0, 2, 2), pb(9, 0, 0, 1), pb(1, 0, 4, 1)}
	cases := []struct {
		b    ProducerBatch
		want Verdict
	}{
		{pb(1, 0, 0, 2), Verdict{Dup: true, Base: 0}},
		{pb(1, 0, 2, 2), Verdict{Code: wire.TransientNotCommitted}},
		{pb(1, 0, 4, 1), Verdict{Code: wire.TransientNotCommitted}},
		{pb(1, 0, 5, 3), Verdict{}},
		{pb(1, 0, 2, 3), Verdict{Code: wire.TransientNotCommitted}},
		{pb(1, 0, 7, 1), Verdict{Code: wire.ProducerSequenceOutOfOrder}},
		{pb(1, 1, 0, 1), Verdict{Code: wire.TransientNotCommitted}},
		{pb(9, 0, 1, 1), Verdict{}},
		{pb(9, 0, 0, 1), Verdict{Code: wire.TransientNotCommitted}},
		{pb(4, 0, 0, 1), Verdict{}},
	}
	for _, c := range cases {
		if got := p.CheckAhead(c.b, 10, ahead); got != c.want {
			t.Errorf("%+v: %+v, want %+v", c.b, got, c.want)
		}
	}
	// A newer epoch ahead fences the older one and starts over.
	if v := p.CheckAhead(pb(1, 0, 2, 1), 10, []ProducerBatch{pb(1, 2, 0, 1)}); v.Code != wire.ProducerEpochFenced {
		t.Fatalf("older epoch behind a newer one ahead: %+v", v)
	}
	if v := p.CheckAhead(pb(1, 2, 1, 1), 10, []ProducerBatch{pb(1, 2, 0, 1)}); v.Code != wire.OK || v.Dup {
		t.Fatalf("next of a newer epoch ahead: %+v", v)
	}
	if !bytes.Equal(p.AppendImage(nil), before) {
		t.Fatal("CheckAhead changed the table")
	}
}

func FuzzDecodeProducersImage(f *testing.F) {
	p := NewProducers()
	p.Record(pb(7, 1, 0, 2), 50, 1000)
	p.Record(pb(8, 0, 0, 1), 52, 1001)
	f.Add(p.AppendImage(nil))
	f.Add([]byte{0, 0, 0, 0})
	f.Add(AppendProducerBatch(nil, pb(1, 2, 3, 4)))
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := DecodeProducersImage(b)
		if err == nil && !bytes.Equal(q.AppendImage(nil), b) {
			t.Fatal("an accepted image does not encode back to itself")
		}
		if d, rest, ok := DecodeProducerBatch(b); ok && !bytes.Equal(append(AppendProducerBatch(nil, d), rest...), b) {
			t.Fatal("a producer batch does not encode back to itself")
		}
	})
}
