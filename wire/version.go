package wire

import (
	"fmt"

	"github.com/iggygo/iggy/internal/assert"
)

// ProtocolVersion is a packed protocol version (protocol-framing.md 4.4):
// major<<20 | minor<<10 | patch, so integer order is semver order.
type ProtocolVersion uint32

const (
	versionComponentBits = 10
	versionComponentMask = 1<<versionComponentBits - 1
	// ProtocolVersionComponentMax is the largest major, minor or patch number.
	ProtocolVersionComponentMax = versionComponentMask
)

// The server's login window. decisions.md rules that the server reports
// 0.12.2 and accepts 0.12.0 through 0.12.2 inclusive, the patch compared too
// (TRAN-6); 0.11.x clients are therefore refused (TRAN-8).
const (
	ProtocolVersionCurrent ProtocolVersion = 0<<20 | 12<<10 | 2
	ProtocolVersionMin     ProtocolVersion = 0<<20 | 12<<10 | 0
)

// PackProtocolVersion packs a version; each component must be below 1024.
func PackProtocolVersion(major, minor, patch uint32) ProtocolVersion {
	if !(major <= ProtocolVersionComponentMax && minor <= ProtocolVersionComponentMax &&
		patch <= ProtocolVersionComponentMax) {
		assert.Failf("version component out of range: %d.%d.%d", major, minor, patch)
	}
	return ProtocolVersion(major<<(2*versionComponentBits) | minor<<versionComponentBits | patch)
}

// Parts unpacks v. Bits 30-31, never set by a well-formed client, are ignored.
func (v ProtocolVersion) Parts() (major, minor, patch uint32) {
	u := uint32(v)
	return u >> (2 * versionComponentBits) & versionComponentMask,
		u >> versionComponentBits & versionComponentMask, u & versionComponentMask
}

func (v ProtocolVersion) String() string {
	major, minor, patch := v.Parts()
	return fmt.Sprintf("%d.%d.%d", major, minor, patch)
}

// ProtocolVersionAccepted is the login gate: the client's version must lie in
// the inclusive window [ProtocolVersionMin, ProtocolVersionCurrent].
// A refusal is Eviction 14 carrying both bounds (TRAN-6, TRAN-7).
func ProtocolVersionAccepted(v ProtocolVersion) bool {
	return v >= ProtocolVersionMin && v <= ProtocolVersionCurrent
}
