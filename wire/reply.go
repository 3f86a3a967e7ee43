package wire

import (
	"encoding/binary"

	"github.com/iggygo/iggy/internal/assert"
)

// Reply header offsets (protocol-framing.md 1.5).
const (
	offRepRequestChecksum = 128
	offRepContext         = 144
	offRepClient          = 160
	offRepOp              = 176
	offRepCommit          = 184
	offRepTimestamp       = 192
	offRepRequest         = 200
	offRepOperation       = 208
	offRepStatus          = 216
)

// Result section geometry (1.8): [count u32] then count {index u32, result u32}.
const (
	resultCountSize   = 4
	resultEntrySize   = 8
	rejectionBodySize = resultCountSize + resultEntrySize
	resultEntriesMax  = 1 // the snapshot never sends more than one entry
)

// ReplyHeader is a server reply frame header (1.2 and 1.5).
type ReplyHeader struct {
	Prologue
	RequestChecksum U128
	Context         U128
	Client          U128
	Op              uint64 // session for NR and login replies, op number for committed ones, 0 for denials
	Commit          uint64
	Timestamp       uint64
	Request         uint64
	Operation       Operation
	Status          Code
}

// ReplyTo starts the reply to req: it echoes the cluster, request checksum,
// client, timestamp, request id and operation. The caller sets Op, Commit and,
// for DeleteSegments, Operation (68); the frame helpers below set Status.
func ReplyTo(req RequestHeader) ReplyHeader {
	return ReplyHeader{
		Prologue:        Prologue{Cluster: req.Cluster},
		RequestChecksum: req.RequestChecksum,
		Client:          req.Client,
		Timestamp:       req.Timestamp,
		Request:         req.Request,
		Operation:       req.Operation,
	}
}

// Put writes h as a Reply header for a body of bodyLen bytes into
// dst[:HeaderSize]. Size and Command are derived; checksums are zero (1.7).
func (h ReplyHeader) Put(dst []byte, bodyLen int) {
	p := h.Prologue
	p.Size = frameSize(bodyLen)
	p.Command = FrameReply
	putPrologue(dst, p)
	putU128(dst, offRepRequestChecksum, h.RequestChecksum)
	putU128(dst, offRepContext, h.Context)
	putU128(dst, offRepClient, h.Client)
	binary.LittleEndian.PutUint64(dst[offRepOp:], h.Op)
	binary.LittleEndian.PutUint64(dst[offRepCommit:], h.Commit)
	binary.LittleEndian.PutUint64(dst[offRepTimestamp:], h.Timestamp)
	binary.LittleEndian.PutUint64(dst[offRepRequest:], h.Request)
	dst[offRepOperation] = byte(h.Operation)
	binary.LittleEndian.PutUint32(dst[offRepStatus:], uint32(h.Status))
}

// DecodeReplyHeader parses a reply header for a client (1.5). frame is the
// header alone or the whole frame. A wrong command byte or size is 3
// (InvalidCommand), after which the SDK drops the connection.
func DecodeReplyHeader(frame []byte) (ReplyHeader, Code) {
	p, code := DecodePrologue(frame)
	if code != OK {
		return ReplyHeader{}, code
	}
	if p.Command != FrameReply || (len(frame) != HeaderSize && len(frame) != int(p.Size)) {
		return ReplyHeader{}, InvalidCommand
	}
	return ReplyHeader{
		Prologue:        p,
		RequestChecksum: getU128(frame, offRepRequestChecksum),
		Context:         getU128(frame, offRepContext),
		Client:          getU128(frame, offRepClient),
		Op:              binary.LittleEndian.Uint64(frame[offRepOp:]),
		Commit:          binary.LittleEndian.Uint64(frame[offRepCommit:]),
		Timestamp:       binary.LittleEndian.Uint64(frame[offRepTimestamp:]),
		Request:         binary.LittleEndian.Uint64(frame[offRepRequest:]),
		Operation:       Operation(frame[offRepOperation]),
		Status:          Code(binary.LittleEndian.Uint32(frame[offRepStatus:])),
	}, OK
}

// DenialFrame is reply shape A (1.8): a nonzero header status and no body.
func DenialFrame(h ReplyHeader, status Code) []byte {
	assert.That(status != OK, "a denial needs a nonzero status")
	h.Status = status
	b := make([]byte, HeaderSize)
	h.Put(b, 0)
	return b
}

// RejectionFrame is the committed or admission rejection of shape B:
// status 0 and the body [count=1][index=0][result], with no payload.
func RejectionFrame(h ReplyHeader, result Code) []byte {
	assert.That(result != OK, "a rejection needs a nonzero result")
	if !h.Operation.ResultFramed(rejectionBodySize) {
		assert.Failf("operation %d is not result-framed", h.Operation)
	}
	h.Status = OK
	b := make([]byte, HeaderSize+rejectionBodySize)
	h.Put(b, rejectionBodySize)
	binary.LittleEndian.PutUint32(b[HeaderSize:], resultEntriesMax)
	binary.LittleEndian.PutUint32(b[HeaderSize+4:], 0)
	binary.LittleEndian.PutUint32(b[HeaderSize+8:], uint32(result))
	return b
}

// ResultFrame is the success form of shape B: status 0, the body
// [count=0][payload]. It returns the header with the count as the first part
// and the payload slices after it, uncopied, for one vectored write.
func ResultFrame(h ReplyHeader, payload ...[]byte) [][]byte {
	if !h.Operation.ResultFramed(resultCountSize) {
		assert.Failf("operation %d is not result-framed", h.Operation)
	}
	h.Status = OK
	bodyLen := resultCountSize + partsLen(payload)
	head := make([]byte, HeaderSize+resultCountSize)
	h.Put(head, bodyLen)
	return append([][]byte{head}, payload...)
}

// RawFrame is shape C: status 0 and the payload as the whole body, uncopied.
// An empty payload gives a header-only frame (Ping, Logout, a read miss).
func RawFrame(h ReplyHeader, payload ...[]byte) [][]byte {
	h.Status = OK
	head := make([]byte, HeaderSize)
	h.Put(head, partsLen(payload))
	return append([][]byte{head}, payload...)
}

// partsLen sums the slice lengths; the frame size check in Put bounds it.
func partsLen(parts [][]byte) int {
	n := 0
	for _, p := range parts {
		n += len(p)
		if n > BodySizeMax {
			assert.Failf("reply body exceeds %d bytes", BodySizeMax)
		}
	}
	return n
}

// ReplyBody is a client's reading of a reply body (1.8).
type ReplyBody struct {
	Result  Code   // header status, or the result-section entry; OK on success
	Payload []byte // aliases the body
}

// SplitReplyBody interprets body as the client does: a nonzero header status
// must come with an empty body; a result-framed operation has the result
// section in front; other operations are raw. A malformed body is 3, and so
// is a status-0 SendMessages reply with an empty body.
func SplitReplyBody(h ReplyHeader, body []byte) (ReplyBody, Code) {
	if h.Status != OK {
		if len(body) != 0 {
			return ReplyBody{}, InvalidCommand
		}
		return ReplyBody{Result: h.Status}, OK
	}
	if h.Operation == OpSendMessages && len(body) == 0 {
		return ReplyBody{}, InvalidCommand
	}
	if !h.Operation.ResultFramed(len(body)) {
		return ReplyBody{Payload: body}, OK
	}
	r := NewReader(body)
	count := r.U32()
	if r.Err() != OK || count > resultEntriesMax {
		return ReplyBody{}, InvalidCommand
	}
	if count == 0 {
		return ReplyBody{Payload: r.Rest()}, OK
	}
	_ = r.U32() // index of the failed entry: always 0
	result := Code(r.U32())
	if r.Err() != OK || result == OK {
		return ReplyBody{}, InvalidCommand
	}
	return ReplyBody{Result: result, Payload: r.Rest()}, OK
}
