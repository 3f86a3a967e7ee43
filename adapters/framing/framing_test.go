package framing

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/iggygo/iggy/wire"
)

// frameOf builds a frame of size bytes whose size field says declared.
func frameOf(size int, declared uint32) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint32(b[48:], declared)
	b[60] = byte(wire.FrameRequest)
	for i := wire.HeaderSize; i < size; i++ {
		b[i] = byte(i)
	}
	return b
}

// One frame per message or stream: exact sizes pass, a bad size field, a
// short message and data after the frame are refused.
// covers TRAN-2, TRAN-3
func TestReadAndEnd(t *testing.T) {
	const capBytes = 1024
	cases := []struct {
		name     string
		in       []byte
		readErr  error
		trailing bool
	}{
		{"header only", frameOf(256, 256), nil, false},
		{"with body", frameOf(300, 300), nil, false},
		{"at the cap", frameOf(capBytes, capBytes), nil, false},
		{"over the cap", frameOf(capBytes+1, capBytes+1), ErrSize, false},
		{"size below header", frameOf(256, 255), ErrSize, false},
		{"size zero", frameOf(256, 0), ErrSize, false},
		{"short header", make([]byte, 100), ErrSize, false},
		{"empty", nil, ErrSize, false},
		{"short body", frameOf(300, 301), ErrSize, false},
		{"trailing byte", frameOf(300, 299), nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := bytes.NewReader(tc.in)
			frame, err := Read(r, capBytes, nil)
			if tc.readErr != nil {
				if !errors.Is(err, tc.readErr) {
					t.Fatalf("Read: %v, want %v", err, tc.readErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			size := binary.LittleEndian.Uint32(frame[48:])
			if len(frame) != int(size) || !bytes.Equal(frame, tc.in[:size]) {
				t.Fatalf("frame of %d bytes does not match the input", len(frame))
			}
			err = End(r)
			if tc.trailing != errors.Is(err, ErrTrailing) || (!tc.trailing && err != nil) {
				t.Fatalf("End: %v (trailing %v)", err, tc.trailing)
			}
		})
	}
}

// A reader failure that is not an early end is passed through, not
// reported as a bad size (a reset QUIC stream is not a framing error).
func TestReadPassesReaderErrors(t *testing.T) {
	boom := errors.New("stream reset")
	_, err := Read(iotest.ErrReader(boom), wire.FrameSizeMax, nil)
	if !errors.Is(err, boom) || errors.Is(err, ErrSize) {
		t.Fatalf("Read: %v", err)
	}
	r := io.MultiReader(bytes.NewReader(frameOf(256, 256)), iotest.ErrReader(boom))
	if _, err := Read(r, wire.FrameSizeMax, nil); err != nil {
		t.Fatalf("Read: %v", err)
	}
	if err := End(r); !errors.Is(err, boom) || errors.Is(err, ErrTrailing) {
		t.Fatalf("End: %v", err)
	}
	if err := End(iotest.OneByteReader(bytes.NewReader(nil))); err != nil {
		t.Fatalf("End of an empty reader: %v", err)
	}
}

// vectorFrames returns the golden request frames, if the vectors are present.
func vectorFrames(f *testing.F) [][]byte {
	dir := filepath.Join("..", "..", "..", "shared", "spec", "vectors") // repo root, then its sibling
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out [][]byte
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".hex") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatalf("read vector %s: %v", e.Name(), err)
		}
		raw, err := hex.DecodeString(strings.Join(strings.Fields(string(b)), ""))
		if err != nil {
			f.Fatalf("vector %s: %v", e.Name(), err)
		}
		out = append(out, raw)
	}
	return out
}

// FuzzReadFrame: any bytes give a frame equal to the declared prefix or an
// error; never a panic, never a frame over the cap.
func FuzzReadFrame(f *testing.F) {
	for _, v := range vectorFrames(f) {
		f.Add(v, uint32(wire.FrameSizeMax))
	}
	f.Add(frameOf(300, 300), uint32(1024))
	f.Add(frameOf(300, 299), uint32(299))
	f.Add([]byte{}, uint32(256))
	f.Fuzz(func(t *testing.T, in []byte, capBytes uint32) {
		capBytes = wire.HeaderSize + capBytes%(wire.FrameSizeMax-wire.HeaderSize+1)
		r := bytes.NewReader(in)
		frame, err := Read(r, capBytes, nil)
		if err != nil {
			return
		}
		if len(frame) > int(capBytes) || !bytes.Equal(frame, in[:len(frame)]) {
			t.Fatalf("frame of %d bytes (cap %d) is not the input's prefix", len(frame), capBytes)
		}
		if err := End(r); (err == nil) != (len(in) == len(frame)) {
			t.Fatalf("End: %v with %d bytes left", err, len(in)-len(frame))
		}
	})
}
