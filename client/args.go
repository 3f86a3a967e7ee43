package client

import (
	"errors"
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// ErrInvalidArgument marks a call refused locally because an argument cannot
// be encoded (a name outside 1..255 bytes, a malformed options block, ...).
var ErrInvalidArgument = errors.New("iggy: invalid argument")

// checkName refuses a WireName outside 1..255 bytes before the codec sees it.
func checkName(what, name string) error {
	if len(name) < 1 || len(name) > wireNameBytesMax {
		return fmt.Errorf("%w: %s must be 1..%d bytes, got %d", ErrInvalidArgument, what, wireNameBytesMax, len(name))
	}
	return nil
}

// checkIDs refuses a string identifier outside 1..255 bytes.
func checkIDs(ids ...wire.Identifier) error {
	for _, id := range ids {
		if !id.Numeric {
			if err := checkName("identifier", id.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOptions refuses an options block another node would not accept.
func checkOptions(o wire.Options) error {
	if code := o.Check(); code != wire.OK {
		return fmt.Errorf("%w: options block: %s", ErrInvalidArgument, code.Name())
	}
	return nil
}

// decodeFailed closes nothing (the frame was read whole, the stream is in
// sync) and reports a payload the client could not decode.
func decodeFailed(what string, code wire.Code) error {
	return fmt.Errorf("%w: cannot decode %s reply: %s", ErrProtocol, what, code.Name())
}

// encode runs an encoder into a fresh body.
func encode(f func(w *wire.Writer)) []byte {
	var w wire.Writer
	f(&w)
	return w.Buf
}
