package partition

import (
	"bytes"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func attempt(client, session, request, fp uint64) Attempt {
	return Attempt{Client: wire.U128{Lo: client, Hi: 7}, Session: session, Request: request, Fingerprint: fp}
}

func wantFound(t *testing.T, r *Receipts, a Attempt, capacity int, want Found, wantBase uint64) {
	t.Helper()
	if got, base := r.Check(a, capacity, 0); got != want || got == FoundCommitted && base != wantBase {
		t.Fatalf("attempt %+v: %d at %d, want %d at %d", a, got, base, want, wantBase)
	}
}

// covers SESS-16, SESS-19, SESS-20
// A resend (same session, request id and batch) of a committed send gets
// its base offset; one still pending is not settled (57 upstream); the
// same request id with another batch is a new send (partition sends do not
// consume ids), and so is the same send in another session.
func TestReceiptsResend(t *testing.T) {
	r := NewReceipts()
	a := attempt(1, 10, 5, 0xaa)
	wantFound(t, r, a, 4, FoundNew, 0)
	r.Admit(a, 100)
	wantFound(t, r, a, 4, FoundPending, 0)
	r.Commit(a)
	wantFound(t, r, a, 4, FoundCommitted, 100)
	wantFound(t, r, attempt(1, 10, 5, 0xbb), 4, FoundNew, 0)
	wantFound(t, r, attempt(1, 11, 5, 0xaa), 4, FoundNew, 0)
	b := attempt(1, 10, 5, 0xbb)
	r.Record(b, 103)
	wantFound(t, r, b, 4, FoundCommitted, 103)
	wantFound(t, r, a, 4, FoundNew, 0) // replaced: the client's last send is b

	// Answered on connection 3, the same bytes again there are a new send
	// (that reply was not lost); on another connection, a resend.
	r.Answered(b, 3)
	if got, _ := r.Check(b, 4, 3); got != FoundAnswered {
		t.Fatalf("the answered send again on its connection: %d, want FoundAnswered", got)
	}
	if got, base := r.Check(b, 4, 4); got != FoundCommitted || base != 103 {
		t.Fatalf("the answered send on another connection: %d at %d, want FoundCommitted at 103", got, base)
	}
}

// covers SESS-25
// A send whose write failed is forgotten and the client's committed
// receipt stays: the earlier send still resolves to it.
func TestReceiptsFailedAttemptKeepsReceipt(t *testing.T) {
	r := NewReceipts()
	a, b := attempt(1, 10, 5, 0xaa), attempt(1, 10, 6, 0xbb)
	r.Record(a, 100)
	r.Admit(b, 103)
	r.Abandon(b)
	wantFound(t, r, a, 4, FoundCommitted, 100)
	wantFound(t, r, b, 4, FoundNew, 0)
	c := attempt(2, 10, 1, 0xcc) // a client with nothing committed leaves the table
	r.Admit(c, 104)
	r.Abandon(c)
	if r.Holds(c.Client) || r.Len() != 1 {
		t.Fatalf("a failed first send kept its client: %d entries", r.Len())
	}
}

// covers SESS-27, SESS-31, SESS-32
// The first commit fixes the capacity; a new writer past it is refused
// while known writers go on and none is evicted; a retirement frees a slot.
func TestReceiptsCapacity(t *testing.T) {
	r := NewReceipts()
	if got := r.CommitLimit(2); got != 2 || r.CommitLimit(9) != 2 {
		t.Fatalf("limit %d, then %d: want 2 kept", got, r.Limit())
	}
	r.Record(attempt(1, 10, 1, 1), 0)
	r.Record(attempt(2, 10, 1, 2), 1)
	wantFound(t, r, attempt(3, 10, 1, 3), 9, FoundFull, 0)
	wantFound(t, r, attempt(1, 10, 2, 4), 9, FoundNew, 0)
	wantFound(t, r, attempt(1, 10, 1, 1), 9, FoundCommitted, 0)
	if r.Retire(Session{Client: wire.U128{Lo: 2, Hi: 7}, ID: 9}) {
		t.Fatal("a retirement of an older session freed a newer one's entry")
	}
	if !r.Retire(Session{Client: wire.U128{Lo: 2, Hi: 7}, ID: 10}) {
		t.Fatal("the session's retirement kept its entry")
	}
	wantFound(t, r, attempt(3, 10, 1, 3), 9, FoundNew, 0)
}

// covers SESS-28
// The image keeps the committed receipts and the limit, in client order
// whatever the map's, and not the pending ones.
func TestReceiptsImage(t *testing.T) {
	r := NewReceipts()
	r.CommitLimit(3)
	for i := range uint64(3) {
		r.Record(attempt(3-i, 10+i, i+1, 0xf0+i), 100*i)
	}
	r.Admit(attempt(1, 20, 9, 9), 500)
	img := r.AppendImage(nil)
	back, err := DecodeReceiptsImage(img)
	if err != nil {
		t.Fatal(err)
	}
	if back.Limit() != 3 || back.Len() != 3 || !bytes.Equal(back.AppendImage(nil), img) {
		t.Fatalf("image did not round-trip: limit %d, %d entries", back.Limit(), back.Len())
	}
	wantFound(t, back, attempt(1, 12, 3, 0xf2), 3, FoundCommitted, 200)
	wantFound(t, back, attempt(1, 20, 9, 9), 3, FoundNew, 0)
	for _, bad := range [][]byte{img[:7], img[:len(img)-1], append(img, 0)} {
		if _, err := DecodeReceiptsImage(bad); err == nil {
			t.Fatalf("a malformed image of %d bytes decoded", len(bad))
		}
	}
}

func FuzzDecodeReceiptsImage(f *testing.F) {
	r := NewReceipts()
	r.CommitLimit(8)
	r.Record(attempt(1, 2, 3, 4), 5)
	r.Record(attempt(6, 7, 8, 9), 10)
	img := r.AppendImage(nil)
	f.Add(img)
	f.Add(img[:20])
	f.Add(append(img[:8:8], img[8:56]...)) // a count of 2 with one entry
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeReceiptsImage(b)
		if err != nil {
			return
		}
		if again := got.AppendImage(nil); !bytes.Equal(again, b) {
			t.Fatalf("decoded image re-encodes differently:\n%x\n%x", b, again)
		}
	})
}
