package websocket

import (
	"errors"
	"io"

	ws "github.com/coder/websocket"

	"github.com/iggygo/iggy/adapters/framing"
)

// errText is a text message: frames are binary (1.1).
var errText = errors.New("text message on a binary-protocol connection")

// readMessage cuts the one frame a message carries: a binary message whose
// length is exactly the frame's declared size, within sizeMax.
func readMessage(typ ws.MessageType, r io.Reader, sizeMax uint32, hold func(int) bool) ([]byte, error) {
	if typ != ws.MessageBinary {
		return nil, errText
	}
	frame, err := framing.Read(r, sizeMax, hold)
	if err != nil {
		return nil, err
	}
	if err := framing.End(r); err != nil {
		return nil, err
	}
	return frame, nil
}

// closeStatus is the WebSocket close code for a refused message: 1003 for
// text, 1008 for a frame whose size is wrong or above the cap.
func closeStatus(err error) ws.StatusCode {
	if errors.Is(err, errText) {
		return ws.StatusUnsupportedData
	}
	return ws.StatusPolicyViolation
}
