package wire

import "github.com/iggygo/iggy/internal/assert"

// Register (login) bodies, protocol-framing.md 4.3. The body is a version
// prefix followed by shape A (password) or shape B (personal access token);
// the codes 40 and 45 are not on the wire, so the server tries A, then B.

// LoginPrefix is the version prefix shared by both shapes.
type LoginPrefix struct {
	Version    ProtocolVersion
	SDKName    string // WireName, 1..255 bytes
	SDKVersion string // WireName, 1..255 bytes
}

// DecodeLoginPrefix reads the prefix and returns the credential bytes after
// it. A failure is answered with Eviction 15 (MalformedLogin). Only the
// prefix is read, so the version gate runs before any credential is parsed
// (TRAN-7).
func DecodeLoginPrefix(body []byte) (LoginPrefix, []byte, Code) {
	r := NewReader(body)
	p := LoginPrefix{Version: ProtocolVersion(r.U32()), SDKName: r.Name(), SDKVersion: r.Name()}
	if r.Err() != OK {
		return LoginPrefix{}, nil, InvalidCommand
	}
	return p, r.Rest(), OK
}

// Encode writes the prefix.
func (p LoginPrefix) Encode(w *Writer) {
	w.U32(uint32(p.Version))
	writeWireName(w, p.SDKName)
	writeWireName(w, p.SDKVersion)
}

// LoginPassword is shape A (LoginRegister, code 40).
type LoginPassword struct {
	Username string // WireName; login also requires UsernameLengthMin..Max
	Password string // u8 string; login also requires PasswordLengthMin..Max
	Context  string // u32 string; the Go SDK sends it empty
}

// DecodeLoginPassword decodes shape A from the bytes after the prefix.
func DecodeLoginPassword(creds []byte) (LoginPassword, Code) {
	r := NewReader(creds)
	l := LoginPassword{Username: r.Name(), Password: r.Str8(), Context: r.Str32()}
	if r.Err() != OK {
		return LoginPassword{}, InvalidCommand
	}
	return l, OK
}

// LengthsValid is the length check of step 3 of 4.3; failing it is an
// invalid-credentials outcome, not a decode failure.
func (l LoginPassword) LengthsValid() bool {
	return UsernameLengthValid(l.Username) &&
		len(l.Password) >= PasswordLengthMin && len(l.Password) <= PasswordLengthMax
}

// Encode writes shape A.
func (l LoginPassword) Encode(w *Writer) {
	writeWireName(w, l.Username)
	writeStr8(w, l.Password)
	w.Str32(l.Context)
}

// LoginToken is shape B (LoginRegisterWithPat, code 45).
type LoginToken struct {
	Token   string // u8 string: the raw personal access token
	Context string // u32 string
}

// DecodeLoginToken decodes shape B from the bytes after the prefix.
func DecodeLoginToken(creds []byte) (LoginToken, Code) {
	r := NewReader(creds)
	l := LoginToken{Token: r.Str8(), Context: r.Str32()}
	if r.Err() != OK {
		return LoginToken{}, InvalidCommand
	}
	return l, OK
}

// Encode writes shape B.
func (l LoginToken) Encode(w *Writer) {
	writeStr8(w, l.Token)
	w.Str32(l.Context)
}

// RegisterReply is the payload of a successful Register reply, after the
// result count (4.3).
type RegisterReply struct {
	UserID        uint32
	Session       uint64 // nonzero
	Protocol      ProtocolVersion
	ServerVersion string // WireName: the server build string
}

// Encode writes the payload; the reply is then ResultFrame(h, payload).
func (r RegisterReply) Encode(w *Writer) {
	assert.That(r.Session != 0, "a Register reply needs a nonzero session")
	w.U32(r.UserID)
	w.U64(r.Session)
	w.U32(uint32(r.Protocol))
	writeWireName(w, r.ServerVersion)
}

// DecodeRegisterReply reads the payload as the SDK does: a zero session or
// a missing or truncated version string is malformed.
func DecodeRegisterReply(payload []byte) (RegisterReply, Code) {
	r := NewReader(payload)
	reply := RegisterReply{UserID: r.U32(), Session: r.U64(), Protocol: ProtocolVersion(r.U32()), ServerVersion: r.Name()}
	if r.Err() != OK || reply.Session == 0 {
		return RegisterReply{}, InvalidCommand
	}
	return reply, OK
}

// wireNameBytesMax is the longest WireName or u8 string.
const wireNameBytesMax = 255

// writeWireName writes a WireName, asserting the 1..255 length encoders owe.
func writeWireName(w *Writer, s string) {
	if len(s) < 1 || len(s) > wireNameBytesMax {
		assert.Failf("WireName length %d", len(s))
	}
	w.Name(s)
}

// writeStr8 writes a u8 string, asserting it fits its length byte.
func writeStr8(w *Writer, s string) {
	if len(s) > wireNameBytesMax {
		assert.Failf("u8 string length %d", len(s))
	}
	w.Str8(s)
}
