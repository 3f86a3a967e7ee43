package wire

import (
	"bytes"
	"testing"
)

func joinParts(parts [][]byte) []byte { return bytes.Join(parts, nil) }

// covers TRAN-1
func TestReplyVectorsDecode(t *testing.T) {
	tests := []struct {
		file    string
		request uint64
		op      Operation
		status  Code
		result  Code
		payload []byte
	}{
		{"09-register-reply-frame.hex", 0, OpRegister, OK, OK, nil},
		{"13-ping-reply-frame.hex", 1, OpNonReplicated, OK, OK, []byte{}},
		{"14-reply-denial-status-41.hex", 0, OpCreateStream, Unauthorized, Unauthorized, nil},
		{"15-reply-committed-rejection-1009.hex", 0, OpCreateStream, OK, StreamIdNotFound, []byte{}},
		{"16-reply-transient-57-header-status.hex", 1, OpCreateStream, TransientNotCommitted, TransientNotCommitted, nil},
		{"17-reply-update-stream-ok.hex", 1, OpUpdateStream, OK, OK, []byte{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			frame := framingVector(t, tt.file)
			h, code := DecodeReplyHeader(frame)
			if code != OK || h.Request != tt.request || h.Operation != tt.op || h.Status != tt.status ||
				h.Size != uint32(len(frame)) {
				t.Fatalf("header %+v code %v", h, code)
			}
			body, code := SplitReplyBody(h, frame[HeaderSize:])
			if code != OK || body.Result != tt.result {
				t.Fatalf("body %+v code %v", body, code)
			}
			if tt.payload != nil && !bytes.Equal(body.Payload, tt.payload) {
				t.Fatalf("payload %x", body.Payload)
			}
		})
	}
}

// The Go SDK fixtures fill only size, command, request, operation, status and
// the body, so a reply built with those fields alone must match them byte for byte.
// covers TRAN-1
func TestReplyVectorsEncode(t *testing.T) {
	h := func(request uint64, op Operation) ReplyHeader { return ReplyHeader{Request: request, Operation: op} }
	regPayload := framingVector(t, "08-register-reply-payload.hex")
	tests := []struct {
		file  string
		frame []byte
	}{
		{"09-register-reply-frame.hex", joinParts(ResultFrame(h(0, OpRegister), regPayload))},
		{"13-ping-reply-frame.hex", joinParts(RawFrame(h(1, OpNonReplicated)))},
		{"14-reply-denial-status-41.hex", DenialFrame(h(0, OpCreateStream), Unauthorized)},
		{"15-reply-committed-rejection-1009.hex", RejectionFrame(h(0, OpCreateStream), StreamIdNotFound)},
		{"16-reply-transient-57-header-status.hex", DenialFrame(h(1, OpCreateStream), TransientNotCommitted)},
		{"17-reply-update-stream-ok.hex", joinParts(ResultFrame(h(1, OpUpdateStream)))},
	}
	for _, tt := range tests {
		if want := framingVector(t, tt.file); !bytes.Equal(tt.frame, want) {
			t.Errorf("%s:\n got %x\nwant %x", tt.file, tt.frame, want)
		}
	}
}

// covers TRAN-1
func TestReplyToEchoesRequest(t *testing.T) {
	req := RequestHeader{Prologue: Prologue{Cluster: U128{Lo: 5}}, Client: U128{Lo: 1, Hi: 2},
		RequestChecksum: U128{Lo: 3}, Timestamp: 4, Request: 6, Operation: OpNonReplicated, Session: 77}
	rh := ReplyTo(req)
	rh.Op, rh.Commit = req.Session, 12
	payload := []byte("payload")
	parts := RawFrame(rh, payload)
	if &parts[1][0] != &payload[0] {
		t.Fatal("payload must not be copied")
	}
	frame := joinParts(parts)
	got, code := DecodeReplyHeader(frame)
	if code != OK {
		t.Fatal(code)
	}
	want := rh
	want.Size, want.Command = uint32(HeaderSize+len(payload)), FrameReply
	if got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, off := range []int{0, 16} { // checksums stay zero on client traffic
		if !allZero(frame[off : off+16]) {
			t.Fatalf("checksum at %d not zero", off)
		}
	}
}

// covers TRAN-1
func TestSplitReplyBodyRejects(t *testing.T) {
	tests := []struct {
		name string
		h    ReplyHeader
		body []byte
	}{
		{"status with body", ReplyHeader{Operation: OpCreateStream, Status: Unauthorized}, []byte{0, 0, 0, 0}},
		{"empty send reply", ReplyHeader{Operation: OpSendMessages}, nil},
		{"short count", ReplyHeader{Operation: OpCreateStream}, []byte{0, 0}},
		{"count 2", ReplyHeader{Operation: OpCreateStream}, []byte{2, 0, 0, 0}},
		{"truncated entry", ReplyHeader{Operation: OpCreateStream}, []byte{1, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"zero result", ReplyHeader{Operation: OpCreateStream}, []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		if _, code := SplitReplyBody(tt.h, tt.body); code != InvalidCommand {
			t.Errorf("%s: code %v", tt.name, code)
		}
	}
	// A framed op with an empty body is raw only for Register.
	if b, code := SplitReplyBody(ReplyHeader{Operation: OpRegister}, nil); code != OK || b.Result != OK {
		t.Fatalf("empty register body: %v %+v", code, b)
	}
	if _, code := SplitReplyBody(ReplyHeader{Operation: OpCreateStream}, nil); code != InvalidCommand {
		t.Fatalf("empty framed body: %v", code)
	}
}

// covers TRAN-1
func TestDecodeReplyHeaderRejects(t *testing.T) {
	good := ReplyHeader{Request: 1, Operation: OpNonReplicated}
	b := make([]byte, HeaderSize)
	good.Put(b, 0)
	b[offCommand] = byte(FrameRequest)
	if _, code := DecodeReplyHeader(b); code != InvalidCommand {
		t.Fatalf("request command accepted: %v", code)
	}
	if _, code := DecodeReplyHeader(b[:100]); code != InvalidCommand {
		t.Fatalf("short header accepted: %v", code)
	}
}

// covers TRAN-1
func FuzzDecodeReply(f *testing.F) {
	addFramingSeeds(f, "09-register-reply-frame.hex", "13-ping-reply-frame.hex", "14-reply-denial-status-41.hex",
		"15-reply-committed-rejection-1009.hex", "16-reply-transient-57-header-status.hex",
		"17-reply-update-stream-ok.hex", "38-cluster-metadata-reply-frame-single.hex")
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, code := DecodeReplyHeader(frame)
		if code != OK {
			return
		}
		body := frame[min(len(frame), HeaderSize):]
		if _, code := SplitReplyBody(h, body); code != OK && code != InvalidCommand {
			t.Fatalf("code %v", code)
		}
	})
}
