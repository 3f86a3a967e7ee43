package batch

import (
	"encoding/binary"

	"github.com/iggygo/iggy/wire"
)

// CheckUserHeaders checks the user headers of every message of a record
// that Validate accepted (wire.CheckUserHeaders). It is an admission check
// only: records stored before it existed may hold headers it refuses, and
// they stay readable (recovery and polls use Validate alone).
func CheckUserHeaders(rec []byte) wire.Code {
	le := binary.LittleEndian
	for frames := rec[HeaderBytes:]; len(frames) > 0; {
		headers := uint64(le.Uint32(frames[frameOffHeadersLength:]))
		payload := uint64(le.Uint32(frames[frameOffPayloadLength:]))
		if headers > 0 {
			start := uint64(FrameHeaderBytes) + payload
			if code := wire.CheckUserHeaders(frames[start : start+headers]); code != wire.OK {
				return code
			}
		}
		frames = frames[uint64(FrameHeaderBytes)+payload+headers:]
	}
	return wire.OK
}
