package batch

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

// ValidateLayout accepts a record whose checksums are wrong but whose layout
// is whole, and refuses a broken layout like Validate.
func TestValidateLayoutSkipsOnlyChecksums(t *testing.T) {
	rec, code := Build([]Message{{Payload: []byte("a")}, {Payload: []byte("bc")}})
	if code != wire.OK {
		t.Fatalf("build: %v", code)
	}
	rec[len(rec)-1] ^= 0xFF // a payload byte: the message checksum no longer holds
	if _, code := Validate(rec); code != wire.InvalidMessageChecksum {
		t.Fatalf("Validate: %v, want 4027", code)
	}
	if _, code := ValidateLayout(rec); code != wire.OK {
		t.Fatalf("ValidateLayout: %v, want OK", code)
	}
	if _, code := ValidateLayout(rec[:len(rec)-1]); code != wire.InvalidCommand {
		t.Fatalf("ValidateLayout of a cut record: %v, want 3", code)
	}
}
