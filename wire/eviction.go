package wire

import (
	"encoding/binary"

	"github.com/iggygo/iggy/internal/assert"
)

// Eviction header offsets (protocol-framing.md 1.6). The frame is header only.
const (
	offEvClient       = 128
	offEvVersionMax   = 144
	offEvVersionMin   = 148
	offEvReserved     = 152 // zero up to the reason byte
	offEvReason       = 255
	evictionFrameSize = HeaderSize
)

// EvictionReason is byte 255 of an Eviction frame (4.7).
type EvictionReason uint8

const (
	EvictNoSession               EvictionReason = 1
	EvictClientReleaseTooLow     EvictionReason = 2 // declared, never sent
	EvictClientReleaseTooHigh    EvictionReason = 3 // declared, never sent
	EvictInvalidRequestOperation EvictionReason = 4
	EvictInvalidRequestBody      EvictionReason = 5
	EvictInvalidRequestBodySize  EvictionReason = 6 // declared, never sent
	EvictSessionTooLow           EvictionReason = 7
	EvictSessionReleaseMismatch  EvictionReason = 8 // declared, never sent
	EvictInvalidCredentials      EvictionReason = 9
	EvictInvalidToken            EvictionReason = 10
	EvictUserInactive            EvictionReason = 11
	EvictSessionError            EvictionReason = 12
	EvictStaleClient             EvictionReason = 13
	EvictIncompatibleProtocol    EvictionReason = 14
	EvictMalformedLogin          EvictionReason = 15
)

// Eviction ends a session in place of a reply (1.6). The version window is
// set only for EvictIncompatibleProtocol.
type Eviction struct {
	Client     U128
	Reason     EvictionReason
	VersionMax ProtocolVersion
	VersionMin ProtocolVersion
}

// IncompatibleProtocolEviction is the Eviction 14 of the login gate, carrying
// the server's window (TRAN-6, TRAN-7).
func IncompatibleProtocolEviction(client U128) Eviction {
	return Eviction{Client: client, Reason: EvictIncompatibleProtocol,
		VersionMax: ProtocolVersionCurrent, VersionMin: ProtocolVersionMin}
}

// Bytes encodes the 256-byte eviction frame.
func (e Eviction) Bytes() []byte {
	assert.That(!e.Client.IsZero(), "an eviction needs a nonzero client")
	assert.That(e.Reason != 0, "an eviction needs a reason")
	if !evictionWindowValid(e) {
		assert.Failf("eviction %d window %d..%d", e.Reason, e.VersionMin, e.VersionMax)
	}
	b := make([]byte, evictionFrameSize)
	putPrologue(b, Prologue{Size: evictionFrameSize, Command: FrameEviction})
	putU128(b, offEvClient, e.Client)
	binary.LittleEndian.PutUint32(b[offEvVersionMax:], uint32(e.VersionMax))
	binary.LittleEndian.PutUint32(b[offEvVersionMin:], uint32(e.VersionMin))
	b[offEvReason] = byte(e.Reason)
	return b
}

// evictionWindowValid: the window is zero except for reason 14, where
// 1 <= min <= max.
func evictionWindowValid(e Eviction) bool {
	if e.Reason == EvictIncompatibleProtocol {
		return e.VersionMin >= 1 && e.VersionMin <= e.VersionMax
	}
	return e.VersionMin == 0 && e.VersionMax == 0
}

// DecodeEviction parses an eviction frame for a client and checks it is well
// formed (1.6), with two tolerances the SDK has: a zero client (no SDK reads
// it, and the SDK's own fixtures leave it zero) and a degenerate reason-14
// window, which ClientError maps to 40. Anything else malformed is 3.
func DecodeEviction(frame []byte) (Eviction, Code) {
	p, code := DecodePrologue(frame)
	if code != OK || p.Command != FrameEviction || p.Size != evictionFrameSize || len(frame) != evictionFrameSize {
		return Eviction{}, InvalidCommand
	}
	if !allZero(frame[offFrameReserve:offFrameEnd]) || !allZero(frame[offEvReserved:offEvReason]) {
		return Eviction{}, InvalidCommand
	}
	e := Eviction{
		Client:     getU128(frame, offEvClient),
		Reason:     EvictionReason(frame[offEvReason]),
		VersionMax: ProtocolVersion(binary.LittleEndian.Uint32(frame[offEvVersionMax:])),
		VersionMin: ProtocolVersion(binary.LittleEndian.Uint32(frame[offEvVersionMin:])),
	}
	degenerate14 := e.Reason == EvictIncompatibleProtocol // reported as 40 by ClientError
	if e.Reason == 0 || (!evictionWindowValid(e) && !degenerate14) {
		return Eviction{}, InvalidCommand
	}
	return e, OK
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// ClientError is the error an SDK reports for e (4.7). Reasons 16 and up are
// 3 on purpose, so they do not trigger a reconnect.
func (e Eviction) ClientError() Code {
	switch e.Reason {
	case EvictNoSession, EvictSessionTooLow, EvictSessionReleaseMismatch, EvictUserInactive, EvictSessionError:
		return Unauthenticated
	case EvictInvalidCredentials:
		return InvalidCredentials
	case EvictInvalidToken:
		return InvalidPersonalAccessToken
	case EvictStaleClient:
		return StaleClient
	case EvictIncompatibleProtocol:
		if e.VersionMin == 0 || e.VersionMax < e.VersionMin {
			return Unauthenticated
		}
		return IncompatibleProtocolVersion
	case EvictMalformedLogin:
		return InvalidFormat
	}
	return InvalidCommand
}
