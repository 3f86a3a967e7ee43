package wire

import "testing"

// covers TRAN-6, TRAN-7, TRAN-8
func TestProtocolVersionGate(t *testing.T) {
	if PackProtocolVersion(0, 12, 0) != 12288 || PackProtocolVersion(0, 11, 0) != 11264 {
		t.Fatal("packing differs from 4.4")
	}
	if ProtocolVersionCurrent.String() != "0.12.2" || ProtocolVersionMin.String() != "0.12.0" {
		t.Fatalf("window %v..%v", ProtocolVersionMin, ProtocolVersionCurrent)
	}
	tests := []struct {
		v    ProtocolVersion
		want bool
	}{
		{PackProtocolVersion(0, 11, 0), false}, // every 0.9.x SDK (TRAN-8)
		{PackProtocolVersion(0, 11, 1023), false},
		{PackProtocolVersion(0, 12, 0), true},
		{PackProtocolVersion(0, 12, 1), true},
		{PackProtocolVersion(0, 12, 2), true},
		{PackProtocolVersion(0, 12, 3), false}, // patch compared on the upper side too (TRAN-6)
		{PackProtocolVersion(0, 13, 0), false},
		{PackProtocolVersion(1, 12, 0), false},
		{0, false},
		{ProtocolVersion(1<<30 | 12288), false},
	}
	for _, tt := range tests {
		if got := ProtocolVersionAccepted(tt.v); got != tt.want {
			t.Errorf("%v (%d): %v", tt.v, uint32(tt.v), got)
		}
	}
}

// covers TRAN-6
func TestProtocolVersionParts(t *testing.T) {
	v := PackProtocolVersion(1023, 2, 1000)
	if ma, mi, pa := v.Parts(); ma != 1023 || mi != 2 || pa != 1000 {
		t.Fatalf("%d.%d.%d", ma, mi, pa)
	}
	if PackProtocolVersion(0, 12, 2) <= PackProtocolVersion(0, 11, 1023) {
		t.Fatal("integer order must be semver order")
	}
}
