package partition

import (
	"encoding/binary"
	"sort"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
	"github.com/zeebo/xxh3"
)

// Consumer offset files (§10.5): [offset u64][XXH3-64 of those 8 bytes].
const (
	offsetRecordBytes = 16
	offsetLegacyBytes = 8
)

// offsetFile is what the log knows of an offset file on disk.
type offsetFile uint8

const (
	offsetFileAbsent offsetFile = iota // not known to exist: create it first
	offsetFileRecord                   // at most 16 bytes: writing a record at 0 replaces it
	offsetFileLong                     // longer than a record (found at boot): truncate after writing
)

type offsetKey struct {
	kind OffsetKind
	id   uint32
}

// pendingOffset is one offset store or delete waiting for its requests.
type pendingOffset struct {
	key  offsetKey
	wait int // requests still in flight
	code wire.Code
}

func encodeOffset(offset uint64) []byte {
	b := make([]byte, offsetRecordBytes)
	binary.LittleEndian.PutUint64(b, offset)
	binary.LittleEndian.PutUint64(b[8:], xxh3.Hash(b[:8]))
	return b
}

// decodeOffset reads an offset file: 16 bytes with a matching checksum, or
// the legacy 8 bytes without one. Anything else is torn or corrupt.
func decodeOffset(b []byte) (uint64, bool) {
	switch len(b) {
	case offsetLegacyBytes:
		return binary.LittleEndian.Uint64(b), true
	case offsetRecordBytes:
		if xxh3.Hash(b[:8]) != binary.LittleEndian.Uint64(b[8:]) {
			return 0, false
		}
		return binary.LittleEndian.Uint64(b), true
	}
	return 0, false
}

// Offset returns the stored offset of a consumer or group.
func (l *Log) Offset(kind OffsetKind, id uint32) (uint64, bool) {
	off, ok := l.offsets[offsetKey{kind, id}]
	return off, ok
}

// StoreOffset sets the offset of a consumer or group at once (reads see
// it) and writes its file; OffsetStored{token} follows when the write (and
// the fdatasync, if sync) completed, or Failed{token} if it failed or the
// partition holds too many offsets. The range rules (InvalidOffset, §7.2)
// are the node's.
func (l *Log) StoreOffset(kind OffsetKind, id uint32, offset uint64, sync bool) (token uint64) {
	if kind < Consumer || kind > External {
		assert.Failf("partition: offset kind %d", kind)
	}
	token = l.newToken()
	key := offsetKey{kind, id}
	_, known := l.offsets[key]
	if (!known && len(l.offsets) >= offsetsMax) || len(l.offsetPending) >= offsetWritesPendingMax {
		l.emit(Failed{Token: token, Code: wire.TransientNotAccepted})
		return token
	}
	l.offsets[key] = offset
	p := &pendingOffset{key: key}
	l.offsetPending[token] = p
	path := l.offsetPath(kind, id)
	state := l.offsetFiles[key]
	if state == offsetFileAbsent {
		l.submitOffset(p, token, storage.Request{Op: storage.OpCreate, File: path})
	}
	l.offsetFiles[key] = offsetFileRecord
	// The file holds one record, so writing it at 0 replaces it; only a
	// longer file found at boot needs cutting to the record (§10.5).
	l.submitOffset(p, token, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{encodeOffset(offset)}})
	if state == offsetFileLong {
		l.submitOffset(p, token, storage.Request{Op: storage.OpTruncate, File: path, Offset: offsetRecordBytes})
	}
	if sync {
		l.submitOffset(p, token, storage.Request{Op: storage.OpSync, File: path})
	}
	return token
}

// DeleteOffset forgets the offset of a consumer or group and deletes its
// file; ok is false (and nothing happens) when none is stored.
func (l *Log) DeleteOffset(kind OffsetKind, id uint32) (token uint64, ok bool) {
	key := offsetKey{kind, id}
	if _, ok := l.offsets[key]; !ok {
		return 0, false
	}
	token = l.newToken()
	if len(l.offsetPending) >= offsetWritesPendingMax {
		l.emit(Failed{Token: token, Code: wire.TransientNotAccepted})
		return token, true
	}
	delete(l.offsets, key)
	delete(l.offsetFiles, key)
	p := &pendingOffset{key: key}
	l.offsetPending[token] = p
	l.submitOffset(p, token, storage.Request{Op: storage.OpDelete, File: l.offsetPath(kind, id)})
	return token, true
}

func (l *Log) submitOffset(p *pendingOffset, token uint64, r storage.Request) {
	p.wait++
	l.submit(r, reqOffset, token)
}

func (l *Log) onOffset(f inflight, c storage.Completion) {
	p := l.offsetPending[f.ref]
	if p == nil || p.wait <= 0 {
		assert.Failf("partition: offset completion for token %d", f.ref)
	}
	p.wait--
	if c.Result == storage.ResultIOError && p.code == wire.OK {
		p.code = wire.CannotOpenConsumerOffsetsFile
		delete(l.offsetFiles, p.key) // make the next store create it again
	}
	if p.wait > 0 {
		return
	}
	delete(l.offsetPending, f.ref)
	if p.code != wire.OK {
		l.emit(Failed{Token: f.ref, Code: p.code})
		return
	}
	l.emit(OffsetStored{Token: f.ref})
}

// dropOffsets forgets every offset and returns the files known to exist,
// in key order so their deletes do not depend on map order (one request
// per file, so a later store of the same file stays behind it).
func (l *Log) dropOffsets() []offsetKey {
	keys := make([]offsetKey, 0, len(l.offsetFiles))
	for k := range l.offsetFiles {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		return keys[i].id < keys[j].id
	})
	clear(l.offsetFiles)
	clear(l.offsets)
	return keys
}

// failPendingOffsets refuses the offset writes still in flight when the
// partition's history resets (CGRP-8), in token order.
func (l *Log) failPendingOffsets(code wire.Code) {
	tokens := make([]uint64, 0, len(l.offsetPending))
	for t := range l.offsetPending {
		tokens = append(tokens, t)
	}
	sort.Slice(tokens, func(i, j int) bool { return tokens[i] < tokens[j] })
	for _, t := range tokens {
		l.emit(Failed{Token: t, Code: code})
	}
	clear(l.offsetPending)
}

// StoredOffset is one consumer's or group's stored offset.
type StoredOffset struct {
	Kind   OffsetKind
	ID     uint32
	Offset uint64
}

// Offsets lists every stored offset, by kind then id: a replica's
// partition checkpoint carries them to a peer that installs it.
func (l *Log) Offsets() []StoredOffset {
	out := make([]StoredOffset, 0, len(l.offsets))
	for k, off := range l.offsets {
		out = append(out, StoredOffset{Kind: k.kind, ID: k.id, Offset: off})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].ID < out[j].ID
	})
	return out
}
