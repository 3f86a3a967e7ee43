package client

import (
	"errors"
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// Error is a server refusal: a nonzero reply status (a denial decided before
// commit) or a rejection in the reply's result section. The request had no
// effect, except for partition writes, which the protocol cannot promise.
type Error struct {
	Code wire.Code
}

func (e *Error) Error() string {
	return fmt.Sprintf("iggy: server error %d (%s)", uint32(e.Code), e.Code.Name())
}

// EvictedError is an Eviction frame received in place of a reply. The server
// ended the session; the client closes the connection, as the SDK does.
type EvictedError struct {
	Reason wire.EvictionReason
	// VersionMax and VersionMin are the server's protocol window, set only
	// for reason 14 (IncompatibleProtocol).
	VersionMax wire.ProtocolVersion
	VersionMin wire.ProtocolVersion
}

func (e *EvictedError) Error() string {
	if e.Reason == wire.EvictIncompatibleProtocol {
		return fmt.Sprintf("iggy: evicted, reason %d (incompatible protocol, server accepts %s..%s)",
			e.Reason, e.VersionMin, e.VersionMax)
	}
	return fmt.Sprintf("iggy: evicted, reason %d", e.Reason)
}

// Code is the error an SDK reports for this eviction (protocol-framing.md 4.7).
func (e *EvictedError) Code() wire.Code {
	return wire.Eviction{Reason: e.Reason, VersionMax: e.VersionMax, VersionMin: e.VersionMin}.ClientError()
}

// ErrClosed is returned by every call on a client whose connection was
// closed: by Close, by an eviction or by a transport or protocol failure.
var ErrClosed = errors.New("iggy: client connection closed")

// ErrNotLoggedIn is returned locally, without sending anything, for an
// operation that needs a bound session (the SDK refuses these locally too).
var ErrNotLoggedIn = errors.New("iggy: not logged in")

// ErrProtocol marks a reply the client cannot accept: a wrong request id or
// operation echo, a malformed body, or a frame of an unexpected kind. The
// connection is closed after it, as the SDK does.
var ErrProtocol = errors.New("iggy: protocol violation")

// IsCode reports whether err is a server *Error carrying code.
func IsCode(err error, code wire.Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// IsEvicted reports whether err is an eviction with the given reason.
func IsEvicted(err error, reason wire.EvictionReason) bool {
	var e *EvictedError
	return errors.As(err, &e) && e.Reason == reason
}
