package metadata

import (
	"unicode/utf8"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// codec walks the fields of a command or of the snapshot, writing them when
// w is set and reading them when r is set. One walk per type keeps the two
// directions symmetric by construction. Reads are strict (booleans 0 or 1,
// bounded lengths), and callers re-encode to reject any non-canonical input.
type codec struct {
	w *wire.Writer
	r *wire.Reader
	// lenient encoding records an unencodable field in bad instead of
	// asserting (wellFormed uses it to vet commands that skipped Encode).
	lenient bool
	bad     bool
}

// require checks an encoding precondition: a bug unless encoding leniently.
func (c *codec) require(cond bool, format string, args ...any) {
	if cond {
		return
	}
	if c.lenient {
		c.bad = true
		return
	}
	assert.Failf(format, args...)
}

func (c *codec) decoding() bool { return c.r != nil }

// ok reports whether decoding has not failed so far (always true when encoding).
func (c *codec) ok() bool { return c.r == nil || c.r.Err() == wire.OK }

func (c *codec) fail() {
	if c.r != nil {
		c.r.Fail(wire.InvalidCommand)
	}
}

func (c *codec) u8(v *uint8) {
	if c.decoding() {
		*v = c.r.U8()
	} else {
		c.w.U8(*v)
	}
}

func (c *codec) u32(v *uint32) {
	if c.decoding() {
		*v = c.r.U32()
	} else {
		c.w.U32(*v)
	}
}

func (c *codec) u64(v *uint64) {
	if c.decoding() {
		*v = c.r.U64()
	} else {
		c.w.U64(*v)
	}
}

func (c *codec) boolean(v *bool) {
	if !c.decoding() {
		c.w.Bool(*v)
		return
	}
	b := c.r.U8()
	if b > 1 {
		c.fail()
	}
	*v = b == 1
}

// length reads or writes a u32 count of items of itemBytes each, refusing a
// count the remaining input cannot hold (so no hostile count allocates).
func (c *codec) length(n *int, itemBytes, max int) {
	if !c.decoding() {
		c.require(*n <= max, "length %d above %d", *n, max)
		c.w.U32(uint32(*n))
		return
	}
	v := c.r.U32()
	if uint64(v) > uint64(max) || uint64(v)*uint64(itemBytes) > uint64(c.r.Len()) {
		c.fail()
		*n = 0
		return
	}
	*n = int(v)
}

// name is a WireName: u8 length 1..255 of UTF-8.
func (c *codec) name(v *string) {
	if c.decoding() {
		*v = c.r.Name()
		return
	}
	c.require(len(*v) >= 1 && len(*v) <= 255, "name of %d bytes", len(*v))
	c.w.Name(*v)
}

// optName is a name that may be empty ("unchanged"): u8 length 0..255.
func (c *codec) optName(v *string) {
	if !c.decoding() {
		c.require(len(*v) <= 255, "name of %d bytes", len(*v))
		c.w.Str8(*v)
		return
	}
	*v = c.r.Str8()
	if !utf8.ValidString(*v) {
		c.fail()
	}
}

// text is a u16-length UTF-8 string of at most max bytes (hashes).
func (c *codec) text(v *string, max int) {
	if !c.decoding() {
		c.require(len(*v) <= max, "text of %d bytes above %d", len(*v), max)
		c.w.U16(uint16(len(*v)))
		c.w.Buf = append(c.w.Buf, *v...)
		return
	}
	n := int(c.r.U16())
	if n > max {
		c.fail()
		return
	}
	b := c.r.Bytes(n)
	if !utf8.Valid(b) {
		c.fail()
		return
	}
	*v = string(b)
}

// options is a u32-length options TLV block in canonical form.
func (c *codec) options(v *[]byte) {
	n := len(*v)
	c.length(&n, 1, optionsBytesMax)
	if !c.decoding() {
		c.require(validOptions(*v), "non-canonical options block")
		c.w.Bytes(*v)
		return
	}
	b := c.r.Bytes(n)
	if !c.ok() || !validOptions(b) {
		c.fail()
		return
	}
	if n > 0 {
		*v = append([]byte(nil), b...)
	}
}

func (c *codec) ident(v *wire.Identifier) {
	if c.decoding() {
		*v = c.r.Identifier()
		return
	}
	c.require(v.Numeric || len(v.Name) >= 1 && len(v.Name) <= 255, "identifier name of %d bytes", len(v.Name))
	c.w.Identifier(*v)
}

func (c *codec) client(v *ClientID) {
	c.u64(&v.Lo)
	c.u64(&v.Hi)
}

// ascending is a u32 list, strictly ascending (so also free of duplicates).
func (c *codec) ascending(v *[]uint32, max int) {
	n := len(*v)
	c.length(&n, 4, max)
	if c.decoding() && n > 0 {
		*v = make([]uint32, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		c.u32(&(*v)[i])
		if i > 0 && (*v)[i] <= (*v)[i-1] {
			c.require(c.decoding(), "list not ascending at %d", i)
			c.fail()
		}
	}
}

// u8s is a u32 count of at most max bytes, then the bytes.
func (c *codec) u8s(v *[]uint8, max int) {
	n := len(*v)
	c.length(&n, 1, max)
	if c.decoding() && n > 0 {
		*v = make([]uint8, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		c.u8(&(*v)[i])
	}
}

// u32s is a u32 count of at most max values, then the values.
func (c *codec) u32s(v *[]uint32, max int) {
	n := len(*v)
	c.length(&n, 4, max)
	if c.decoding() && n > 0 {
		*v = make([]uint32, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		c.u32(&(*v)[i])
	}
}

// permissions is [has u8][len u32][block] (protocol-framing.md 6.3).
func (c *codec) permissions(v **wire.Permissions) {
	has := *v != nil
	c.boolean(&has)
	if !c.decoding() {
		if has {
			var block wire.Writer
			block.Permissions(**v)
			c.w.U32(uint32(len(block.Buf)))
			c.w.Bytes(block.Buf)
		}
		return
	}
	if !has || !c.ok() {
		*v = nil
		return
	}
	n := c.r.U32()
	if uint64(n) > uint64(c.r.Len()) {
		c.fail()
		return
	}
	p := normalizePermissions(c.r.Permissions(int(n)))
	*v = &p
}

// blob is a u32-length byte string of at most max bytes (change bodies).
func (c *codec) blob(v *[]byte, max int) {
	n := len(*v)
	c.length(&n, 1, max)
	if !c.decoding() {
		c.w.Bytes(*v)
		return
	}
	b := c.r.Bytes(n)
	if c.ok() {
		*v = append([]byte(nil), b...)
	}
}
