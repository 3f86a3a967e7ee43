package wire

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/internal/assert"
)

// Frame geometry (protocol-framing.md 1.1-1.2). Every frame is a 256-byte
// header plus an optional body; the size field counts both.
const (
	HeaderSize   = 256
	FrameSizeMax = 64 << 20 // 64 MiB including the header: the SDKs' hard limit
	BodySizeMax  = FrameSizeMax - HeaderSize
)

// Prologue offsets, shared by every frame kind (1.2).
const (
	offCluster      = 32 // bytes 0-31 are checksums, always zero on client traffic
	offSize         = 48
	offView         = 52
	offRelease      = 56
	offCommand      = 60
	offReplica      = 61
	offFrameReserve = 62 // 66 reserved bytes up to 128
	offFrameEnd     = 128
)

// Request header offsets (1.4).
const (
	offReqClient          = 128
	offReqRequestChecksum = 144
	offReqTimestamp       = 160
	offReqRequest         = 168
	offReqOperation       = 176
	offReqSession         = 184
	offReqUserID          = 192
	offReqNRCode          = 196
)

// U128 is a little-endian 128-bit value: Lo at offset +0, Hi at offset +8.
type U128 struct{ Lo, Hi uint64 }

// IsZero reports whether both halves are zero.
func (u U128) IsZero() bool { return u.Lo == 0 && u.Hi == 0 }

func getU128(b []byte, off int) U128 {
	return U128{Lo: binary.LittleEndian.Uint64(b[off:]), Hi: binary.LittleEndian.Uint64(b[off+8:])}
}

func putU128(b []byte, off int, u U128) {
	binary.LittleEndian.PutUint64(b[off:], u.Lo)
	binary.LittleEndian.PutUint64(b[off+8:], u.Hi)
}

// FrameCommand is the frame discriminant at byte 60 (1.3).
type FrameCommand uint8

// Frame discriminants. Only Request, Reply and Eviction appear on a client
// connection; the others are replica-to-replica traffic.
const (
	FrameReserved              FrameCommand = 0
	FramePing                  FrameCommand = 1
	FramePong                  FrameCommand = 2
	FramePingClient            FrameCommand = 3
	FramePongClient            FrameCommand = 4
	FrameRequest               FrameCommand = 5
	FramePrepare               FrameCommand = 6
	FramePrepareOk             FrameCommand = 7
	FrameReply                 FrameCommand = 8
	FrameCommit                FrameCommand = 9
	FrameStartViewChange       FrameCommand = 10
	FrameDoViewChange          FrameCommand = 11
	FrameStartView             FrameCommand = 12
	FrameEviction              FrameCommand = 13
	FrameReplicaHello          FrameCommand = 14
	FrameReplicaChallenge      FrameCommand = 15
	FrameReplicaFinish         FrameCommand = 16
	FrameRequestStartView      FrameCommand = 17
	FrameRequestPrepares       FrameCommand = 18
	FrameRepairPrepare         FrameCommand = 19
	FrameRepairDone            FrameCommand = 20
	FrameRangeEvicted          FrameCommand = 21
	FrameRequestStateTransfer  FrameCommand = 22
	FrameStateTransferTarget   FrameCommand = 23
	FrameRequestStateChunk     FrameCommand = 24
	FrameStateChunk            FrameCommand = 25
	FrameForwardRegister       FrameCommand = 26
	FrameForwardRegisterResult FrameCommand = 27
	FrameForwardLogout         FrameCommand = 28
	FrameForwardLogoutResult   FrameCommand = 29

	// FrameCommandMax is the highest parseable discriminant; above it the
	// frame cannot be parsed and the connection is closed.
	FrameCommandMax = FrameForwardLogoutResult
)

// Prologue is bytes 0-127 of any frame, minus the checksums that client
// traffic never uses (1.7).
type Prologue struct {
	Cluster U128
	Size    uint32
	View    uint32
	Release uint32
	Command FrameCommand
	Replica uint8
}

// DecodePrologue reads the prologue of a frame whose first 256 bytes are in
// header. It fails with InvalidCommand when the header is short or the size
// is outside [HeaderSize, FrameSizeMax]; a reader then closes the connection.
// The command byte is returned as is: its meaning depends on the direction.
func DecodePrologue(header []byte) (Prologue, Code) {
	if len(header) < HeaderSize {
		return Prologue{}, InvalidCommand
	}
	p := Prologue{
		Cluster: getU128(header, offCluster),
		Size:    binary.LittleEndian.Uint32(header[offSize:]),
		View:    binary.LittleEndian.Uint32(header[offView:]),
		Release: binary.LittleEndian.Uint32(header[offRelease:]),
		Command: FrameCommand(header[offCommand]),
		Replica: header[offReplica],
	}
	if p.Size < HeaderSize || p.Size > FrameSizeMax {
		return Prologue{}, InvalidCommand
	}
	return p, OK
}

// putPrologue writes the prologue with zero checksums (1.7) and zero reserved bytes.
func putPrologue(dst []byte, p Prologue) {
	if len(dst) < HeaderSize {
		assert.Failf("header buffer %d < %d", len(dst), HeaderSize)
	}
	if p.Size < HeaderSize || p.Size > FrameSizeMax {
		assert.Failf("frame size %d out of range", p.Size)
	}
	clear(dst[:HeaderSize])
	putU128(dst, offCluster, p.Cluster)
	binary.LittleEndian.PutUint32(dst[offSize:], p.Size)
	binary.LittleEndian.PutUint32(dst[offView:], p.View)
	binary.LittleEndian.PutUint32(dst[offRelease:], p.Release)
	dst[offCommand] = byte(p.Command)
	dst[offReplica] = p.Replica
}

// frameSize is the total size of a frame with a body of bodyLen bytes.
func frameSize(bodyLen int) uint32 {
	if bodyLen < 0 || bodyLen > BodySizeMax {
		assert.Failf("body length %d out of range", bodyLen)
	}
	return uint32(HeaderSize + bodyLen)
}

// RequestHeader is a client request frame header (1.2 and 1.4).
type RequestHeader struct {
	Prologue
	Client          U128
	RequestChecksum U128
	Timestamp       uint64
	Request         uint64
	Operation       Operation
	Session         uint64
	UserID          uint32  // never trusted by the server
	NRCode          Command // meaningful only for OpNonReplicated
}

// Verdict is what a server does with a request frame after header validation.
type Verdict uint8

const (
	// VerdictAccept: the header is a valid request; handle it.
	VerdictAccept Verdict = iota + 1
	// VerdictDrop: the header breaks a 1.4 rule; no reply, no eviction.
	VerdictDrop
	// VerdictSkip: a parseable command byte other than Request; log and skip,
	// the connection stays open and nothing is sent.
	VerdictSkip
	// VerdictClose: bad size or command byte above 29; close the connection.
	VerdictClose
)

// DecodeRequestHeader parses and validates a request header (1.3, 1.4).
// frame is either the 256-byte header alone (to learn the size before
// reading the body) or the complete frame, whose length must then equal size.
// The header is returned (best effort) with every verdict except VerdictClose.
func DecodeRequestHeader(frame []byte) (RequestHeader, Verdict) {
	p, code := DecodePrologue(frame)
	if code != OK {
		return RequestHeader{}, VerdictClose
	}
	if len(frame) != HeaderSize && len(frame) != int(p.Size) {
		return RequestHeader{}, VerdictClose
	}
	if p.Command > FrameCommandMax {
		return RequestHeader{}, VerdictClose
	}
	h := RequestHeader{
		Prologue:        p,
		Client:          getU128(frame, offReqClient),
		RequestChecksum: getU128(frame, offReqRequestChecksum),
		Timestamp:       binary.LittleEndian.Uint64(frame[offReqTimestamp:]),
		Request:         binary.LittleEndian.Uint64(frame[offReqRequest:]),
		Operation:       Operation(frame[offReqOperation]),
		Session:         binary.LittleEndian.Uint64(frame[offReqSession:]),
		UserID:          binary.LittleEndian.Uint32(frame[offReqUserID:]),
		NRCode:          Command(binary.LittleEndian.Uint32(frame[offReqNRCode:])),
	}
	if p.Command != FrameRequest {
		return h, VerdictSkip
	}
	return h, validateRequest(h)
}

// validateRequest applies the drop-silently rules of 1.4.
func validateRequest(h RequestHeader) Verdict {
	if h.Client.IsZero() || !OperationDeclared(h.Operation) {
		return VerdictDrop
	}
	switch h.Operation {
	case OpRegister:
		if h.Session != 0 || h.Request != 0 {
			return VerdictDrop
		}
	case OpNonReplicated:
		// No constraint: NR requests may be sent before login.
	default:
		if h.Session == 0 || h.Request == 0 {
			return VerdictDrop
		}
	}
	return VerdictAccept
}

// Put writes h as a Request header for a body of bodyLen bytes into
// dst[:HeaderSize]. Size and Command are derived; reserved bytes are zero.
func (h RequestHeader) Put(dst []byte, bodyLen int) {
	p := h.Prologue
	p.Size = frameSize(bodyLen)
	p.Command = FrameRequest
	putPrologue(dst, p)
	putU128(dst, offReqClient, h.Client)
	putU128(dst, offReqRequestChecksum, h.RequestChecksum)
	binary.LittleEndian.PutUint64(dst[offReqTimestamp:], h.Timestamp)
	binary.LittleEndian.PutUint64(dst[offReqRequest:], h.Request)
	dst[offReqOperation] = byte(h.Operation)
	binary.LittleEndian.PutUint64(dst[offReqSession:], h.Session)
	binary.LittleEndian.PutUint32(dst[offReqUserID:], h.UserID)
	binary.LittleEndian.PutUint32(dst[offReqNRCode:], uint32(h.NRCode))
}

// Bytes returns a fresh 256-byte Request header for a body of bodyLen bytes,
// so the body can follow as a separate slice of a vectored write.
func (h RequestHeader) Bytes(bodyLen int) []byte {
	b := make([]byte, HeaderSize)
	h.Put(b, bodyLen)
	return b
}

// RequestChecksum is the optional body stamp of 1.7: XXH3-64 with seed 0
// over the body, widened to u128 by zero extension.
func RequestChecksum(body []byte) U128 { return U128{Lo: xxh3.Hash(body)} }

// RequestChecksumValid reports whether body matches the header's stamp; a
// zero stamp turns the check off. A mismatch is answered with status 4.
func RequestChecksumValid(h RequestHeader, body []byte) bool {
	return h.RequestChecksum.IsZero() || h.RequestChecksum == RequestChecksum(body)
}
