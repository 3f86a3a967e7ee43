package wire

import (
	"encoding/binary"
	"unicode/utf8"
)

// Reader decodes little-endian primitives from a body. The first failure is
// sticky: every later read returns zero values and Err reports the failure,
// so a decoder can read all its fields and check once.
type Reader struct {
	buf []byte
	pos int
	err Code
}

// NewReader starts reading b from its first byte.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Err is OK while every read so far fitted, else the code of the first failure.
func (r *Reader) Err() Code { return r.err }

// Fail records c as the failure unless one is already recorded.
func (r *Reader) Fail(c Code) {
	if r.err == OK {
		r.err = c
	}
}

// Pos is the offset of the next unread byte.
func (r *Reader) Pos() int { return r.pos }

// Len is the number of unread bytes.
func (r *Reader) Len() int { return len(r.buf) - r.pos }

// Rest returns every unread byte and consumes them (no copy).
func (r *Reader) Rest() []byte {
	b := r.buf[r.pos:]
	r.pos = len(r.buf)
	return b
}

// Bytes consumes n bytes and returns them without copying.
func (r *Reader) Bytes(n int) []byte {
	if r.err != OK || n < 0 || r.Len() < n {
		r.Fail(InvalidCommand)
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *Reader) U8() uint8 {
	b := r.Bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *Reader) U16() uint16 {
	b := r.Bytes(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *Reader) U32() uint32 {
	b := r.Bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *Reader) U64() uint64 {
	b := r.Bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// Bool reads one byte; any nonzero value is true.
func (r *Reader) Bool() bool { return r.U8() != 0 }

// Name reads a WireName: u8 length 1..255 and valid UTF-8.
func (r *Reader) Name() string {
	n := int(r.U8())
	if r.err == OK && n == 0 {
		r.Fail(InvalidCommand)
		return ""
	}
	b := r.Bytes(n)
	if r.err == OK && !utf8.Valid(b) {
		r.Fail(InvalidCommand)
		return ""
	}
	return string(b)
}

// Str8 reads a u8-length string whose length may be 0 (passwords, tokens).
func (r *Reader) Str8() string { return string(r.Bytes(int(r.U8()))) }

// Str32 reads a u32-length string whose length may be 0.
func (r *Reader) Str32() string {
	n := r.U32()
	if uint64(n) > uint64(r.Len()) {
		r.Fail(InvalidCommand)
		return ""
	}
	return string(r.Bytes(int(n)))
}

// Writer appends little-endian primitives to a growing buffer.
type Writer struct{ Buf []byte }

func (w *Writer) U8(v uint8)   { w.Buf = append(w.Buf, v) }
func (w *Writer) U16(v uint16) { w.Buf = binary.LittleEndian.AppendUint16(w.Buf, v) }
func (w *Writer) U32(v uint32) { w.Buf = binary.LittleEndian.AppendUint32(w.Buf, v) }
func (w *Writer) U64(v uint64) { w.Buf = binary.LittleEndian.AppendUint64(w.Buf, v) }
func (w *Writer) Bytes(b []byte) {
	w.Buf = append(w.Buf, b...)
}

func (w *Writer) Bool(v bool) {
	if v {
		w.U8(1)
	} else {
		w.U8(0)
	}
}

// Name writes a WireName; the caller guarantees 1..255 bytes.
func (w *Writer) Name(s string) {
	w.U8(uint8(len(s)))
	w.Buf = append(w.Buf, s...)
}

// Str8 writes a u8-length string (at most 255 bytes).
func (w *Writer) Str8(s string) {
	w.U8(uint8(len(s)))
	w.Buf = append(w.Buf, s...)
}

// Str32 writes a u32-length string.
func (w *Writer) Str32(s string) {
	w.U32(uint32(len(s)))
	w.Buf = append(w.Buf, s...)
}

// Identifier names a stream, topic, group, user or consumer: by numeric id or by exact name.
type Identifier struct {
	Numeric bool
	ID      uint32
	Name    string
}

// NumericID returns the numeric identifier id.
func NumericID(id uint32) Identifier { return Identifier{Numeric: true, ID: id} }

// NamedID returns the string identifier name.
func NamedID(name string) Identifier { return Identifier{Name: name} }

const (
	identifierKindNumeric = 1
	identifierKindString  = 2
)

// Identifier reads kind, length and value (6.1 of protocol-framing.md).
func (r *Reader) Identifier() Identifier {
	kind := r.U8()
	n := int(r.U8())
	if r.err != OK {
		return Identifier{}
	}
	switch {
	case kind == identifierKindNumeric && n == 4:
		return Identifier{Numeric: true, ID: r.U32()}
	case kind == identifierKindString && n >= 1:
		b := r.Bytes(n)
		if r.err == OK && !utf8.Valid(b) {
			r.Fail(InvalidCommand)
		}
		return Identifier{Name: string(b)}
	}
	r.Fail(InvalidCommand)
	return Identifier{}
}

// Identifier writes id.
func (w *Writer) Identifier(id Identifier) {
	if id.Numeric {
		w.U8(identifierKindNumeric)
		w.U8(4)
		w.U32(id.ID)
		return
	}
	w.U8(identifierKindString)
	w.Name(id.Name)
}
