package wire

import (
	"bytes"
	"testing"
)

// covers TRAN-6, TRAN-7, TRAN-8
func TestEvictionVectors(t *testing.T) {
	tests := []struct {
		file string
		want Eviction
		err  Code
	}{
		{"18-eviction-incompatible-protocol.hex", Eviction{Reason: EvictIncompatibleProtocol,
			VersionMax: PackProtocolVersion(0, 12, 0), VersionMin: PackProtocolVersion(0, 11, 0)}, IncompatibleProtocolVersion},
		{"19-eviction-invalid-credentials.hex", Eviction{Reason: EvictInvalidCredentials}, InvalidCredentials},
		{"20-eviction-stale-client.hex", Eviction{Reason: EvictStaleClient}, StaleClient},
		{"21-eviction-no-session.hex", Eviction{Reason: EvictNoSession}, Unauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			frame := framingVector(t, tt.file)
			got, code := DecodeEviction(frame)
			if code != OK || got != tt.want || got.ClientError() != tt.err {
				t.Fatalf("got %+v code %v error %v", got, code, got.ClientError())
			}
			// The fixtures leave the client zero (vector disagreement 1); a
			// server must not, so encode with a client and clear it again.
			withClient := got
			withClient.Client = U128{Lo: 1}
			again := withClient.Bytes()
			clear(again[offEvClient : offEvClient+16])
			if !bytes.Equal(again, frame) {
				t.Fatalf("re-encoded\n%x\n%x", again, frame)
			}
		})
	}
}

// covers TRAN-6, TRAN-7
func TestIncompatibleProtocolEvictionWindow(t *testing.T) {
	e := IncompatibleProtocolEviction(U128{Lo: 9, Hi: 1})
	b := e.Bytes()
	if len(b) != HeaderSize || b[offCommand] != byte(FrameEviction) || b[offEvReason] != 14 {
		t.Fatalf("frame %x", b)
	}
	// decisions.md: max 0.12.2 at 144, min 0.12.0 at 148.
	if !bytes.Equal(b[144:152], []byte{0x02, 0x30, 0, 0, 0x00, 0x30, 0, 0}) {
		t.Fatalf("window bytes %x", b[144:152])
	}
	got, code := DecodeEviction(b)
	if code != OK || got != e || got.ClientError() != IncompatibleProtocolVersion {
		t.Fatalf("%+v %v", got, code)
	}
}

// covers TRAN-1
func TestEvictionClientErrors(t *testing.T) {
	want := map[EvictionReason]Code{
		1: Unauthenticated, 2: InvalidCommand, 3: InvalidCommand, 4: InvalidCommand, 5: InvalidCommand,
		6: InvalidCommand, 7: Unauthenticated, 8: Unauthenticated, 9: InvalidCredentials,
		10: InvalidPersonalAccessToken, 11: Unauthenticated, 12: Unauthenticated, 13: StaleClient,
		15: InvalidFormat, 16: InvalidCommand, 255: InvalidCommand,
	}
	for reason, code := range want {
		if got := (Eviction{Reason: reason}).ClientError(); got != code {
			t.Errorf("reason %d: %v, want %v", reason, got, code)
		}
	}
	degenerate := []Eviction{{Reason: 14}, {Reason: 14, VersionMax: 1, VersionMin: 2}}
	for _, e := range degenerate {
		if e.ClientError() != Unauthenticated {
			t.Errorf("%+v: %v", e, e.ClientError())
		}
	}
}

// covers TRAN-1
func TestDecodeEvictionRejects(t *testing.T) {
	base := Eviction{Client: U128{Lo: 1}, Reason: EvictNoSession}.Bytes()
	tests := map[string]func(b []byte) []byte{
		"reason 0":          func(b []byte) []byte { b[offEvReason] = 0; return b },
		"reserved frame":    func(b []byte) []byte { b[100] = 1; return b },
		"reserved eviction": func(b []byte) []byte { b[200] = 1; return b },
		"window not 14":     func(b []byte) []byte { b[offEvVersionMax] = 1; return b },
		"size 257":          func(b []byte) []byte { b[offSize] = 1; b[offSize+1] = 1; return append(b, 0) },
		"command reply":     func(b []byte) []byte { b[offCommand] = byte(FrameReply); return b },
		"short":             func(b []byte) []byte { return b[:255] },
	}
	for name, mutate := range tests {
		if _, code := DecodeEviction(mutate(bytes.Clone(base))); code != InvalidCommand {
			t.Errorf("%s: %v", name, code)
		}
	}
}

// covers TRAN-1
func FuzzDecodeEviction(f *testing.F) {
	addFramingSeeds(f, "18-eviction-incompatible-protocol.hex", "19-eviction-invalid-credentials.hex",
		"20-eviction-stale-client.hex", "21-eviction-no-session.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		e, code := DecodeEviction(b)
		if code != OK {
			return
		}
		_ = e.ClientError()
		if e.Client.IsZero() || (e.Reason == EvictIncompatibleProtocol && !evictionWindowValid(e)) {
			return // tolerated on decode, but never encoded
		}
		// Checksums, cluster, view, release and replica are not part of an
		// eviction's meaning, so compare the decoded values, not the bytes.
		if again, code := DecodeEviction(e.Bytes()); code != OK || again != e {
			t.Fatalf("round trip %+v %v, want %+v", again, code, e)
		}
	})
}
