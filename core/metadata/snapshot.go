package metadata

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/wire"
)

// Snapshot layout: ["IGMS"][version u8][body][xxh3-64 of everything before,
// u64 LE]. The body walks the state in id order, so equal states give equal
// bytes, and Restore accepts only bytes Snapshot could have written.
const (
	snapshotVersion       = 3 // 2: partitions carry their members and primaries; 3: the change log
	snapshotChecksumBytes = 8
	// Decode bounds for counts with no protocol limit; the remaining input
	// bounds them further.
	groupsPerTopicMax  = 1 << 24
	membersPerGroupMax = 1 << 24
	usersMax           = 1 << 24
	tokensPerUserMax   = 1 << 20
)

var snapshotMagic = []byte("IGMS")

// Snapshot encodes the whole state.
func (s *State) Snapshot() []byte {
	w := &wire.Writer{}
	w.Bytes(snapshotMagic)
	w.U8(snapshotVersion)
	s.walk(&codec{w: w})
	w.U64(xxh3.Hash(w.Buf))
	return w.Buf
}

// Restore decodes a snapshot, verifying its checksum, its version and every
// invariant of the state.
func Restore(b []byte) (*State, error) {
	head := len(snapshotMagic) + 1
	if len(b) < head+snapshotChecksumBytes || !bytes.Equal(b[:len(snapshotMagic)], snapshotMagic) {
		return nil, fmt.Errorf("snapshot header: %w", ErrCorrupt)
	}
	body := b[:len(b)-snapshotChecksumBytes]
	if xxh3.Hash(body) != binary.LittleEndian.Uint64(b[len(body):]) {
		return nil, fmt.Errorf("snapshot checksum mismatch: %w", ErrCorrupt)
	}
	if v := b[len(snapshotMagic)]; v != snapshotVersion {
		return nil, fmt.Errorf("snapshot version %d, want %d: %w", v, snapshotVersion, ErrCorrupt)
	}
	s := New()
	r := wire.NewReader(body[head:])
	s.walk(&codec{r: r})
	if r.Err() != wire.OK || r.Len() != 0 {
		return nil, fmt.Errorf("snapshot body malformed near byte %d: %w", head+r.Pos(), ErrCorrupt)
	}
	if err := s.index(); err != nil {
		return nil, fmt.Errorf("snapshot: %w: %w", err, ErrCorrupt)
	}
	if !s.changes.check() {
		return nil, fmt.Errorf("snapshot: change log out of order: %w", ErrCorrupt)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("snapshot: %w: %w", err, ErrCorrupt)
	}
	if !bytes.Equal(s.Snapshot(), b) {
		return nil, fmt.Errorf("snapshot not in canonical form: %w", ErrCorrupt)
	}
	return s, nil
}

func (s *State) walk(c *codec) {
	c.u64(&s.lastOp)
	c.u32(&s.nextUserID)
	walkList(c, &s.streams, streamsMax, (*Stream).walk)
	walkList(c, &s.users, usersMax, (*User).walk)
	s.changes.walk(c)
}

// walkList walks a count and then each element, allocating them on decode.
func walkList[T any](c *codec, list *[]*T, max int, walk func(*T, *codec)) {
	n := len(*list)
	c.length(&n, 1, max)
	if c.decoding() && n > 0 {
		*list = make([]*T, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		if c.decoding() {
			(*list)[i] = new(T)
		}
		walk((*list)[i], c)
	}
	if !c.ok() {
		*list = nil
	}
}

func (x *Stream) walk(c *codec) {
	c.u32(&x.ID)
	c.name(&x.Name)
	c.u64(&x.CreatedAtMicros)
	c.u64(&x.CreatedOp)
	c.options(&x.Options)
	walkList(c, &x.Topics, topicsPerStreamMax, (*Topic).walk)
}

func (x *Topic) walk(c *codec) {
	c.u32(&x.ID)
	c.name(&x.Name)
	c.u64(&x.CreatedAtMicros)
	c.u64(&x.CreatedOp)
	c.options(&x.ExplicitOptions)
	c.options(&x.DerivedOptions)
	c.u64(&x.MessageExpiry)
	c.u64(&x.MaxTopicSize)
	c.u8(&x.CompressionAlgorithm)
	c.u8(&x.ReplicationFactor)
	c.u8((*uint8)(&x.ResizePolicy))
	n := len(x.Partitions)
	c.length(&n, 26, partitionIDsMax)
	if c.decoding() && n > 0 {
		x.Partitions = make([]Partition, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		p := &x.Partitions[i]
		c.u32(&p.ID)
		c.u64(&p.CreatedAtMicros)
		c.u64(&p.CreatedRevision)
		c.u8s(&p.Members, replicationFactorMax)
		c.u8(&p.FirstPrimary)
		c.u8(&p.Primary)
	}
	c.u32(&x.NextGroupID)
	walkList(c, &x.Groups, groupsPerTopicMax, (*ConsumerGroup).walk)
}

func (x *ConsumerGroup) walk(c *codec) {
	c.u32(&x.ID)
	c.name(&x.Name)
	c.u64(&x.Generation)
	n := len(x.Members)
	c.length(&n, 28, membersPerGroupMax)
	if c.decoding() && n > 0 {
		x.Members = make([]Member, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		x.Members[i].walk(c)
	}
}

func (x *Member) walk(c *codec) {
	c.u32(&x.ID)
	c.client(&x.Client)
	c.ascending(&x.Partitions, partitionIDsMax)
	n := len(x.Revoking)
	c.length(&n, 26, partitionIDsMax)
	if c.decoding() && n > 0 {
		x.Revoking = make([]Revocation, n)
	}
	for i := 0; i < n && c.ok(); i++ {
		c.u32(&x.Revoking[i].Partition)
		c.client(&x.Revoking[i].Target)
	}
}

func (x *User) walk(c *codec) {
	c.u32(&x.ID)
	c.name(&x.Username)
	c.text(&x.PasswordHash, hashBytesMax)
	c.u8((*uint8)(&x.Status))
	c.u64(&x.CreatedAtMicros)
	c.permissions(&x.Permissions)
	walkList(c, &x.tokens, tokensPerUserMax, func(t *PersonalAccessToken, c *codec) {
		t.UserID = x.ID
		c.name(&t.Name)
		c.text(&t.TokenHash, hashBytesMax)
		c.u64(&t.ExpiryAtMicros)
	})
}
