package flight

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/iggygo/iggy/core/node"
)

// FormatVersion is the dump layout: magic, this version, a JSON header,
// then records. A reader refuses any other version.
const FormatVersion = 2

// magic opens every dump.
const magic = "IGGY-FLIGHT\n"

// headerBytesMax bounds the JSON header a reader accepts.
const headerBytesMax = 1 << 20

// recordBytesMax bounds one record a reader accepts: a frame or a read of
// up to 64 MiB plus its fields.
const recordBytesMax = 65 << 20

// Record kinds: an input of each node.Input kind, the node's boot, a
// TakeReady with the digests of what it returned, and the answers of the
// node.Crypto calls an input made (they follow the input's record).
const (
	kindBoot uint8 = iota + 1
	kindTick
	kindOpen
	kindClose
	kindFrame
	kindTrusted
	kindPeer
	kindHand
	kindDone
	kindJob
	kindTake
	kindMint
	kindHashToken
	kindRandom
	kindNewKey
)

// How a completion record carries its data: none, the bytes, or (a poll
// read) their digest and length.
const (
	dataNone uint8 = iota
	dataBytes
	dataDigest
)

// Header describes a dump: who wrote it and from where its window starts.
type Header struct {
	Format int    `json:"format"`
	Build  string `json:"build"` // Build() of the writing binary
	Reason string `json:"reason"`
	Shards int    `json:"shards"`
	// Config is the node configuration of shard 0 (each shard's differs
	// only in Shard); the replay builds its nodes from it.
	Config node.Config `json:"config"`
	// FromBoot: no record was evicted, the window starts at boot.
	FromBoot bool   `json:"from_boot"`
	Evicted  uint64 `json:"evicted_records"`
	Records  uint64 `json:"records"`
	// Takes and Hash: the TakeReady calls since boot and the fold of their
	// digests, as the server computed them.
	Takes uint64 `json:"takes"`
	Hash  string `json:"hash"`
	// ReadsByDigest: poll reads are recorded by digest, and the replay
	// reads their bytes from the server's data directory.
	ReadsByDigest bool `json:"reads_by_digest"`
}

// Build names the running binary's build: module version, VCS revision and
// whether the tree was modified. A dump replays only under the build that
// wrote it, unless forced: the core's code is part of the recording.
func Build() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "norev", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	return fmt.Sprintf("%s %s%s %s", info.Main.Version, rev, dirty, info.GoVersion)
}

func writeHeader(w io.Writer, h Header) error {
	h.Format = FormatVersion
	h.Config.Marks = nil
	js, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("flight dump header: %w", err)
	}
	b := append([]byte(magic), 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[len(magic):], FormatVersion)
	binary.LittleEndian.PutUint32(b[len(magic)+4:], uint32(len(js)))
	if _, err := w.Write(append(b, js...)); err != nil {
		return fmt.Errorf("flight dump header: %w", err)
	}
	return nil
}

// ErrNotFlight says a file is not a flight dump (iggy-sim then reads it as
// a simulator trace).
var ErrNotFlight = errors.New("not a flight recorder dump")

// IsDump reports whether b, the first bytes of a file, open a dump.
func IsDump(b []byte) bool { return len(b) >= len(magic) && string(b[:len(magic)]) == magic }

func readHeader(r io.Reader) (Header, error) {
	var pre [len(magic) + 8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil || !IsDump(pre[:]) {
		return Header{}, ErrNotFlight
	}
	if v := binary.LittleEndian.Uint32(pre[len(magic):]); v != FormatVersion {
		return Header{}, fmt.Errorf("flight dump format %d, this build reads format %d", v, FormatVersion)
	}
	n := binary.LittleEndian.Uint32(pre[len(magic)+4:])
	if n > headerBytesMax {
		return Header{}, fmt.Errorf("flight dump header of %d bytes", n)
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(r, js); err != nil {
		return Header{}, fmt.Errorf("flight dump header: %w", err)
	}
	var h Header
	if err := json.Unmarshal(js, &h); err != nil {
		return Header{}, fmt.Errorf("flight dump header: %w", err)
	}
	return h, nil
}

// readRecord reads one length-prefixed record into buf (grown as needed);
// io.EOF at a record boundary is the end of the dump.
func readRecord(r io.Reader, buf []byte) ([]byte, error) {
	var pre [4]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("flight dump: truncated record length")
		}
		return nil, err
	}
	n := binary.LittleEndian.Uint32(pre[:])
	if n < 2 || n > recordBytesMax {
		return nil, fmt.Errorf("flight dump: record of %d bytes", n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("flight dump: truncated record: %w", err)
	}
	return buf, nil
}
