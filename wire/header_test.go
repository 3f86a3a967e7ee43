package wire

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iggygo/iggy/internal/testenv"
)

// framingVectorDir is the golden vector directory, reached from the package
// directory through the repository root (shared/ is a sibling of the repo).
var framingVectorDir = filepath.Join("..", "..", "shared", "spec", "vectors")

// framingVector loads one golden vector, skipping the test when the shared
// directory is absent (failing it under CI).
func framingVector(t testing.TB, name string) []byte {
	t.Helper()
	b, ok := framingVectorBytes(name)
	if !ok {
		testenv.VectorsMissing(t, framingVectorDir, os.ErrNotExist)
	}
	return b
}

// framingVectorBytes reads a vector without failing, for fuzz seeds.
func framingVectorBytes(name string) ([]byte, bool) {
	raw, err := os.ReadFile(filepath.Join(framingVectorDir, name))
	if err != nil {
		return nil, false
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(raw)), ""))
	if err != nil {
		panic("corrupt vector " + name + ": " + err.Error())
	}
	return b, true
}

// addFramingSeeds adds the named vectors as fuzz seeds.
func addFramingSeeds(f *testing.F, names ...string) {
	for _, n := range names {
		if b, ok := framingVectorBytes(n); ok {
			f.Add(b)
		}
	}
}

// covers TRAN-1
func TestRequestHeaderVectors(t *testing.T) {
	tests := []struct {
		file string
		want RequestHeader
	}{
		{"01-request-header-golden-create-stream.hex", RequestHeader{
			Prologue: Prologue{Size: 260, Command: FrameRequest},
			Client:   U128{Lo: 0x0807060504030201, Hi: 0x100f0e0d0c0b0a09},
			Request:  2, Operation: OpCreateStream, Session: 11}},
		{"02-request-header-all-fields-nr.hex", RequestHeader{
			Prologue: Prologue{Size: 259, Command: FrameRequest},
			Client:   U128{Lo: 0x99aabbccddeeff00, Hi: 0x1122334455667788},
			Request:  0x0102030405060708, Operation: OpNonReplicated,
			Session: 0x1020304050607080, NRCode: 60001}},
		{"03-request-frame-register-minimal.hex", RequestHeader{
			Prologue: Prologue{Size: 256, Command: FrameRequest},
			Client:   U128{Lo: 1}, Operation: OpRegister}},
		{"10-logout-request-frame.hex", RequestHeader{
			Prologue: Prologue{Size: 256, Command: FrameRequest},
			Client:   U128{Lo: 0xaa, Hi: 0xbb}, Request: 1, Operation: OpLogout, Session: 100}},
		{"11-ping-request-frame-bound.hex", RequestHeader{
			Prologue: Prologue{Size: 256, Command: FrameRequest},
			Client:   U128{Lo: 0xaa, Hi: 0xbb}, Request: 1, Operation: OpNonReplicated,
			Session: 100, NRCode: CmdPing}},
		{"12-ping-request-frame-unbound.hex", RequestHeader{
			Prologue: Prologue{Size: 256, Command: FrameRequest},
			Client:   U128{Lo: 1}, Request: 1, Operation: OpNonReplicated, NRCode: CmdPing}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			frame := framingVector(t, tt.file)
			got, v := DecodeRequestHeader(frame)
			if v != VerdictAccept {
				t.Fatalf("verdict %d", v)
			}
			if got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
			again := got.Bytes(int(got.Size) - HeaderSize)
			if !bytes.Equal(again, frame[:HeaderSize]) {
				t.Fatalf("re-encoded header differs\n%x\n%x", again, frame[:HeaderSize])
			}
		})
	}
}

// covers TRAN-1
func TestRequestFramesWithBody(t *testing.T) {
	for _, tt := range []struct {
		frame, body string
	}{
		{"05-login-register-request-frame.hex", "04-login-register-body.hex"},
		{"07-login-register-pat-request-frame.hex", "06-login-register-pat-body.hex"},
	} {
		frame := framingVector(t, tt.frame)
		body := framingVector(t, tt.body)
		h, v := DecodeRequestHeader(frame)
		if v != VerdictAccept || h.Operation != OpRegister || h.Size != uint32(len(frame)) {
			t.Fatalf("%s: verdict %d header %+v", tt.frame, v, h)
		}
		if !bytes.Equal(frame[HeaderSize:], body) {
			t.Fatalf("%s: body differs from %s", tt.frame, tt.body)
		}
		if !bytes.Equal(h.Bytes(len(body)), frame[:HeaderSize]) {
			t.Fatalf("%s: header does not re-encode", tt.frame)
		}
	}
}

func validHeader() RequestHeader {
	return RequestHeader{Client: U128{Lo: 7}, Request: 3, Session: 9, Operation: OpCreateStream}
}

// covers TRAN-1
func TestRequestHeaderVerdicts(t *testing.T) {
	setSize := func(b []byte, size uint32) {
		b[offSize], b[offSize+1], b[offSize+2], b[offSize+3] = byte(size), byte(size>>8), byte(size>>16), byte(size>>24)
	}
	tests := []struct {
		name   string
		mutate func(h *RequestHeader, b []byte) []byte
		want   Verdict
	}{
		{"valid", func(_ *RequestHeader, b []byte) []byte { return b }, VerdictAccept},
		{"short", func(_ *RequestHeader, b []byte) []byte { return b[:HeaderSize-1] }, VerdictClose},
		{"size below header", func(_ *RequestHeader, b []byte) []byte { setSize(b, 255); return b }, VerdictClose},
		{"size above max", func(_ *RequestHeader, b []byte) []byte { setSize(b, FrameSizeMax+1); return b }, VerdictClose},
		{"size max header only", func(_ *RequestHeader, b []byte) []byte { setSize(b, FrameSizeMax); return b }, VerdictAccept},
		{"frame length mismatch", func(_ *RequestHeader, b []byte) []byte { setSize(b, 300); return append(b, 1, 2) }, VerdictClose},
		{"command 30", func(_ *RequestHeader, b []byte) []byte { b[offCommand] = 30; return b }, VerdictClose},
		{"command reply skipped", func(_ *RequestHeader, b []byte) []byte { b[offCommand] = 8; return b }, VerdictSkip},
		{"command prepare skipped", func(_ *RequestHeader, b []byte) []byte { b[offCommand] = 6; return b }, VerdictSkip},
		{"command 29 skipped", func(_ *RequestHeader, b []byte) []byte { b[offCommand] = 29; return b }, VerdictSkip},
		{"command 0 skipped", func(_ *RequestHeader, b []byte) []byte { b[offCommand] = 0; return b }, VerdictSkip},
		{"client zero", func(h *RequestHeader, _ []byte) []byte { h.Client = U128{}; return nil }, VerdictDrop},
		{"client high only", func(h *RequestHeader, _ []byte) []byte { h.Client = U128{Hi: 1}; return nil }, VerdictAccept},
		{"operation 0", func(h *RequestHeader, _ []byte) []byte { h.Operation = 0; return nil }, VerdictDrop},
		{"operation 4 undeclared", func(h *RequestHeader, _ []byte) []byte { h.Operation = 4; return nil }, VerdictDrop},
		{"operation 151 undeclared", func(h *RequestHeader, _ []byte) []byte { h.Operation = 151; return nil }, VerdictDrop},
		{"operation 164 undeclared", func(h *RequestHeader, _ []byte) []byte { h.Operation = 164; return nil }, VerdictDrop},
		{"internal op passes header", func(h *RequestHeader, _ []byte) []byte { h.Operation = OpTruncatePartition; return nil }, VerdictAccept},
		{"metadata session 0", func(h *RequestHeader, _ []byte) []byte { h.Session = 0; return nil }, VerdictDrop},
		{"metadata request 0", func(h *RequestHeader, _ []byte) []byte { h.Request = 0; return nil }, VerdictDrop},
		{"logout request 0", func(h *RequestHeader, _ []byte) []byte { h.Operation, h.Request = OpLogout, 0; return nil }, VerdictDrop},
		{"partition session 0", func(h *RequestHeader, _ []byte) []byte { h.Operation, h.Session = OpSendMessages, 0; return nil }, VerdictDrop},
		{"register bound ids", func(h *RequestHeader, _ []byte) []byte { h.Operation = OpRegister; return nil }, VerdictDrop},
		{"register request 0 session 1", func(h *RequestHeader, _ []byte) []byte {
			h.Operation, h.Request = OpRegister, 0
			return nil
		}, VerdictDrop},
		{"register zeros", func(h *RequestHeader, _ []byte) []byte {
			h.Operation, h.Request, h.Session = OpRegister, 0, 0
			return nil
		}, VerdictAccept},
		{"nr anything", func(h *RequestHeader, _ []byte) []byte {
			h.Operation, h.Request, h.Session = OpNonReplicated, 0, 0
			return nil
		}, VerdictAccept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := validHeader()
			b := h.Bytes(0)
			if out := tt.mutate(&h, b); out != nil {
				b = out
			} else {
				b = h.Bytes(0)
			}
			if _, v := DecodeRequestHeader(b); v != tt.want {
				t.Fatalf("verdict %d, want %d", v, tt.want)
			}
		})
	}
}

// covers TRAN-1
func TestRequestChecksum(t *testing.T) {
	body := []byte("hello body")
	h := validHeader()
	if !RequestChecksumValid(h, body) {
		t.Fatal("zero stamp must disable the check")
	}
	h.RequestChecksum = RequestChecksum(body)
	if h.RequestChecksum.Hi != 0 || h.RequestChecksum.Lo == 0 {
		t.Fatalf("checksum must be zero-extended XXH3-64: %+v", h.RequestChecksum)
	}
	if !RequestChecksumValid(h, body) {
		t.Fatal("matching stamp refused")
	}
	if RequestChecksumValid(h, []byte("hello bodx")) {
		t.Fatal("mismatching stamp accepted")
	}
	// XXH3-64 seed 0 of the empty input is a published constant.
	if RequestChecksum(nil).Lo != 0x2d06800538d394c2 {
		t.Fatalf("xxh3 empty = %x", RequestChecksum(nil).Lo)
	}
	decoded, _ := DecodeRequestHeader(h.Bytes(len(body)))
	if decoded.RequestChecksum != h.RequestChecksum {
		t.Fatal("request checksum not at 144")
	}
}

// covers TRAN-1
func FuzzDecodeRequestHeader(f *testing.F) {
	addFramingSeeds(f, "01-request-header-golden-create-stream.hex", "02-request-header-all-fields-nr.hex",
		"03-request-frame-register-minimal.hex", "05-login-register-request-frame.hex",
		"10-logout-request-frame.hex", "11-ping-request-frame-bound.hex", "12-ping-request-frame-unbound.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		h, v := DecodeRequestHeader(b)
		switch v {
		case VerdictAccept:
			again, v2 := DecodeRequestHeader(h.Bytes(int(h.Size) - HeaderSize))
			if v2 != VerdictAccept || again != h {
				t.Fatalf("round trip: %d %+v != %+v", v2, again, h)
			}
		case VerdictDrop, VerdictSkip, VerdictClose:
		default:
			t.Fatalf("verdict %d", v)
		}
	})
}
