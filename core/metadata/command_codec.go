package metadata

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"

	"github.com/iggygo/iggy/wire"
)

// The op-log encoding of a command: [kind u8] then its fields in walk order,
// little-endian, with nothing after them. Exactly one byte string encodes a
// command: Decode refuses any other (non-canonical booleans, permissions or
// options order), so Encode(Decode(b)) == b for every accepted b.

// unsettledMax bounds JoinConsumerGroup.Unsettled (a topic's partition ids).
const unsettledMax = partitionIDsMax

// ErrCorrupt is wrapped by every Decode and Restore failure.
var ErrCorrupt = errors.New("metadata: corrupt encoding")

// Encode returns the op-log bytes of cmd. The node builds commands from
// validated requests; a field outside its encodable range is a bug (assert).
func Encode(cmd Command) []byte {
	w := &wire.Writer{}
	w.U8(uint8(cmd.Kind()))
	cmd.walk(&codec{w: w})
	return w.Buf
}

// Decode parses op-log bytes back into a command.
func Decode(b []byte) (Command, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("empty command: %w", ErrCorrupt)
	}
	cmd := newCommand(Kind(b[0]))
	if cmd == nil {
		return nil, fmt.Errorf("unknown command kind %d: %w", b[0], ErrCorrupt)
	}
	r := wire.NewReader(b[1:])
	cmd.walk(&codec{r: r})
	if r.Err() != wire.OK {
		return nil, fmt.Errorf("command kind %d malformed near byte %d: %w", b[0], r.Pos()+1, ErrCorrupt)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("command kind %d has %d trailing bytes: %w", b[0], r.Len(), ErrCorrupt)
	}
	if !bytes.Equal(Encode(cmd), b) {
		return nil, fmt.Errorf("command kind %d not in canonical form: %w", b[0], ErrCorrupt)
	}
	return cmd, nil
}

// wellFormed reports whether cmd is exactly what Decode could return, so
// that Apply never stores what the log or a snapshot could not hold, even
// for a command that never went through Encode.
func wellFormed(cmd Command) bool {
	if cmd == nil || reflect.ValueOf(cmd).IsNil() {
		return false
	}
	w := &wire.Writer{}
	w.U8(uint8(cmd.Kind()))
	c := &codec{w: w, lenient: true}
	cmd.walk(c)
	if c.bad {
		return false
	}
	_, err := Decode(w.Buf)
	return err == nil
}

func (x *CreateStream) walk(c *codec) { c.name(&x.Name); c.options(&x.Options) }

func (x *UpdateStream) walk(c *codec) {
	c.ident(&x.Stream)
	c.name(&x.Name)
	c.options(&x.Options)
}

func (x *DeleteStream) walk(c *codec) { c.ident(&x.Stream) }
func (x *PurgeStream) walk(c *codec)  { c.ident(&x.Stream) }

func (x *CreateTopic) walk(c *codec) {
	c.ident(&x.Stream)
	c.name(&x.Name)
	c.u32(&x.PartitionsCount)
	c.options(&x.ExplicitOptions)
	c.options(&x.DerivedOptions)
	c.u64(&x.MessageExpiry)
	c.u64(&x.MaxTopicSize)
	c.u8(&x.CompressionAlgorithm)
	c.u8(&x.ReplicationFactor)
	c.u8((*uint8)(&x.ResizePolicy))
	x.Placement.walk(c)
}

func (x *UpdateTopic) walk(c *codec) {
	c.ident(&x.Stream)
	c.ident(&x.Topic)
	c.name(&x.Name)
	c.options(&x.Options)
}

func (x *DeleteTopic) walk(c *codec) { c.ident(&x.Stream); c.ident(&x.Topic) }
func (x *PurgeTopic) walk(c *codec)  { c.ident(&x.Stream); c.ident(&x.Topic) }

func (x *CreatePartitions) walk(c *codec) {
	c.ident(&x.Stream)
	c.ident(&x.Topic)
	c.u32(&x.Count)
	x.Placement.walk(c)
}

func (x *Placement) walk(c *codec) {
	c.u8(&x.Nodes)
	c.u8s(&x.Racks, replicationFactorMax)
	c.u32(&x.Eligible)
	c.u32s(&x.Loads, replicationFactorMax)
}

func (x *MovePrimary) walk(c *codec) {
	c.u32(&x.Stream)
	c.u32(&x.Topic)
	c.u32(&x.Partition)
	c.u64(&x.Revision)
	c.u8(&x.From)
	c.u8(&x.To)
}
func (x *DeletePartitions) walk(c *codec) { c.ident(&x.Stream); c.ident(&x.Topic); c.u32(&x.Count) }

func (x *TruncatePartition) walk(c *codec) {
	c.ident(&x.Stream)
	c.ident(&x.Topic)
	c.u32(&x.Partition)
	c.u64(&x.Watermark)
}

func (x *CreateConsumerGroup) walk(c *codec) { c.ident(&x.Stream); c.ident(&x.Topic); c.name(&x.Name) }

func (x *DeleteConsumerGroup) walk(c *codec) {
	c.ident(&x.Stream)
	c.ident(&x.Topic)
	c.ident(&x.Group)
}

func (x *JoinConsumerGroup) walk(c *codec) {
	c.ident(&x.Stream)
	c.ident(&x.Topic)
	c.ident(&x.Group)
	c.client(&x.Client)
	c.ascending(&x.Unsettled, unsettledMax)
}

func (x *LeaveConsumerGroup) walk(c *codec) {
	c.ident(&x.Stream)
	c.ident(&x.Topic)
	c.ident(&x.Group)
	c.client(&x.Client)
}

func (x *RemoveMember) walk(c *codec) { c.client(&x.Client) }

func (x *CompleteRevocation) walk(c *codec) {
	c.ident(&x.Stream)
	c.ident(&x.Topic)
	c.ident(&x.Group)
	c.u32(&x.Partition)
}

func (x *CreateUser) walk(c *codec) {
	c.name(&x.Username)
	c.text(&x.PasswordHash, hashBytesMax)
	c.u8((*uint8)(&x.Status))
	c.permissions(&x.Permissions)
}

func (x *UpdateUser) walk(c *codec) {
	c.ident(&x.User)
	c.optName(&x.Username)
	c.u8((*uint8)(&x.Status))
}

func (x *DeleteUser) walk(c *codec) { c.ident(&x.User) }

func (x *ChangePassword) walk(c *codec) {
	c.ident(&x.User)
	c.text(&x.ExpectedHash, hashBytesMax)
	c.text(&x.PasswordHash, hashBytesMax)
}

func (x *UpdatePermissions) walk(c *codec) { c.ident(&x.User); c.permissions(&x.Permissions) }

func (x *CreatePersonalAccessToken) walk(c *codec) {
	c.name(&x.Name)
	c.text(&x.TokenHash, hashBytesMax)
	c.u64(&x.LifetimeMicros)
}

func (x *DeletePersonalAccessToken) walk(c *codec) { c.name(&x.Name) }
func (x *DeleteExpiredTokens) walk(*codec)         {}

func (x *SetStreamKeyOptions) walk(c *codec) {
	c.u32(&x.Stream)
	c.u64(&x.CreatedOp)
	c.options(&x.Options)
}

// UpdateResource writes only the identifiers its scope uses.
func (x *UpdateResource) walk(c *codec) {
	c.u8((*uint8)(&x.Scope))
	switch x.Scope {
	case ScopeStream:
		c.ident(&x.Stream)
	case ScopeTopic:
		c.ident(&x.Stream)
		c.ident(&x.Topic)
	case ScopeUser:
		c.ident(&x.User)
	default:
		c.require(c.decoding(), "UpdateResource scope %d", x.Scope)
		c.fail()
		return
	}
	c.optName(&x.Name)
	c.u8((*uint8)(&x.Status))
	c.options(&x.Set)
	c.options(&x.Reset)
}
