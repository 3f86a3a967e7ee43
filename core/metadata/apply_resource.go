package metadata

import (
	"bytes"

	"github.com/iggygo/iggy/wire"
)

// Option keys an update may meet. The node checks requests against the full
// catalogs before logging; apply re-checks the update rules of the README
// (RES-9..RES-13) so every replica commits the same rejection.
const (
	keyMessageExpiry = "message_expiry"
	keyMaxTopicSize  = "max_topic_size"
	keySegmentSize   = "segment_size"
)

// topicCreateOnly are topic keys fixed at create (4103 on update, 4104 on reset).
var topicCreateOnly = []string{
	"compression_algorithm", keySegmentSize, "durability", "consumer_offset_durability",
	"partition_resize_policy", "messages_required_to_save", "size_of_messages_required_to_save",
	"enforce_fsync", "preallocate_segments", "replication_factor",
}

// streamCreateOnly and streamReadOnly are the stream keys of the target
// release: a stream's data key never changes, and its projections are
// reported, never set.
var (
	streamCreateOnly = []string{"encryption_key"}
	streamReadOnly   = []string{"encryption_key_source", "encryption_key_fingerprint", "encryption_kek_fingerprint"}
)

func isOneOf(key []byte, list []string) bool {
	for _, k := range list {
		if string(key) == k {
			return true
		}
	}
	return false
}

// updateResource patches one resource; the legacy UpdateStream, UpdateTopic
// and UpdateUser commands arrive here too.
func (s *State) updateResource(ctx Ctx, c *UpdateResource) Result {
	set, okSet := parseOptions(c.Set)
	reset, okReset := parseOptions(c.Reset)
	if !okSet || !okReset || overlaps(set, reset) {
		return reject(wire.InvalidCommand) // RES-7: a key both set and reset
	}
	switch c.Scope {
	case ScopeStream:
		return s.patchStream(ctx, c, set, reset)
	case ScopeTopic:
		return s.patchTopic(ctx, c, set, reset)
	case ScopeUser:
		return s.patchUser(ctx, c, set, reset)
	}
	return reject(wire.InvalidCommand)
}

func overlaps(a, b []option) bool {
	for _, x := range a {
		for _, y := range b {
			if bytes.Equal(x.key, y.key) {
				return true
			}
		}
	}
	return false
}

func (s *State) patchStream(ctx Ctx, c *UpdateResource, set, reset []option) Result {
	st, _, ok := s.findStream(c.Stream)
	if !ok {
		return reject(wire.StreamIdNotFound)
	}
	if !s.can(ctx, ActionManageStreams, st.ID, NoResource) {
		return reject(wire.Unauthorized)
	}
	if c.Status != 0 {
		return reject(wire.InvalidCommand)
	}
	if code := streamKeysCode(set, reset); code != wire.OK {
		return reject(code)
	}
	if c.Name != "" && c.Name != st.Name {
		if _, taken := s.streamNames[c.Name]; taken {
			return reject(wire.StreamNameAlreadyExists)
		}
		delete(s.streamNames, st.Name)
		st.Name = c.Name
		s.streamNames[st.Name] = st.ID
	}
	return Result{}
}

// streamKeysCode: no stream option is updatable or resettable.
func streamKeysCode(set, reset []option) wire.Code {
	for _, o := range set {
		switch {
		case isOneOf(o.key, streamCreateOnly):
			return wire.OptionNotUpdatable
		case isOneOf(o.key, streamReadOnly):
			return wire.ReadOnlyOption
		}
		return wire.UnsupportedOptionKey
	}
	for _, o := range reset {
		switch {
		case isOneOf(o.key, streamReadOnly):
			return wire.ReadOnlyOption
		case isOneOf(o.key, streamCreateOnly):
			return wire.OptionNotResettable
		}
		return wire.UnsupportedOptionKey
	}
	return wire.OK
}

func (s *State) patchTopic(ctx Ctx, c *UpdateResource, set, reset []option) Result {
	st, t, _, code := s.findTopicIn(c.Stream, c.Topic)
	if code != wire.OK {
		return reject(code)
	}
	if !s.can(ctx, ActionManageTopics, st.ID, t.ID) {
		return reject(wire.Unauthorized)
	}
	if c.Status != 0 {
		return reject(wire.InvalidCommand)
	}
	if code := topicKeysCode(set, reset); code != wire.OK {
		return reject(code)
	}
	if c.Name != "" && c.Name != t.Name {
		if _, taken := st.topicNames[c.Name]; taken {
			return reject(wire.TopicNameAlreadyExists)
		}
	}
	explicit, _ := parseOptions(t.ExplicitOptions)
	derived, _ := parseOptions(t.DerivedOptions)
	for _, o := range set {
		explicit = withOption(explicit, o)
		derived = withoutOption(derived, o.key)
	}
	for _, o := range reset {
		explicit = withoutOption(explicit, o.key)
		derived = withOption(derived, o)
	}
	expiry := effectiveU64(explicit, derived, keyMessageExpiry, t.MessageExpiry)
	maxSize := effectiveU64(explicit, derived, keyMaxTopicSize, t.MaxTopicSize)
	if !fitsSegment(maxSize, explicit, derived) {
		return reject(wire.InvalidTopicSize)
	}
	if c.Name != "" && c.Name != t.Name {
		delete(st.topicNames, t.Name)
		t.Name = c.Name
		st.topicNames[t.Name] = t.ID
	}
	t.ExplicitOptions, t.DerivedOptions = encodeOptions(explicit), encodeOptions(derived)
	t.MessageExpiry, t.MaxTopicSize = expiry, maxSize
	return Result{}
}

// topicKeysCode: only message_expiry and max_topic_size may be set or reset,
// and their values must be canonical Uint64.
func topicKeysCode(set, reset []option) wire.Code {
	for phase, list := range [][]option{set, reset} {
		for _, o := range list {
			k := string(o.key)
			if k == keyMessageExpiry || k == keyMaxTopicSize {
				if _, ok := o.uint64Value(); !ok {
					return wire.InvalidOptionValue
				}
				continue
			}
			if !isOneOf(o.key, topicCreateOnly) {
				return wire.UnsupportedOptionKey
			}
			if phase == 0 {
				return wire.OptionNotUpdatable
			}
			return wire.OptionNotResettable
		}
	}
	return wire.OK
}

// effectiveU64 is the value of key, explicit before derived, else current.
func effectiveU64(explicit, derived []option, key string, current uint64) uint64 {
	for _, opts := range [][]option{explicit, derived} {
		if o, ok := findOption(opts, key); ok {
			if v, ok := o.uint64Value(); ok {
				return v
			}
		}
	}
	return current
}

func (s *State) patchUser(ctx Ctx, c *UpdateResource, set, reset []option) Result {
	if !s.can(ctx, ActionManageUsers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	u, _, ok := s.findUser(c.User)
	if !ok {
		return reject(wire.ResourceNotFound)
	}
	if len(set) > 0 || len(reset) > 0 {
		return reject(wire.UnsupportedOptionKey) // the user catalog has no keys
	}
	rename := c.Name != "" && c.Name != u.Username
	status := c.Status
	if status != UserActive && status != UserInactive {
		status = 0 // other values are ignored (protocol-framing.md 8.5)
	}
	if code := s.rootGuard(ctx, u, c.Name != "", status); code != wire.OK {
		return reject(code)
	}
	if rename {
		if !validUsername(c.Name) {
			return reject(wire.InvalidUsername)
		}
		if _, taken := s.userNames[c.Name]; taken {
			return reject(wire.UserAlreadyExists)
		}
		delete(s.userNames, u.Username)
		u.Username = c.Name
		s.userNames[u.Username] = u.ID
	}
	var effects []Effect
	if status != 0 && status != u.Status {
		u.Status = status
		if status == UserInactive {
			effects = append(effects, UserDeactivated{User: u.ID})
		}
	}
	return Result{Effects: effects}
}

// rootGuard: only root may rename root or change its status, and root may
// not deactivate itself (AUTH-3..AUTH-7).
func (s *State) rootGuard(ctx Ctx, u *User, naming bool, status UserStatus) wire.Code {
	if u.ID != RootUserID {
		return wire.OK
	}
	if ctx.UserID != RootUserID && (naming || status != 0) {
		return wire.CannotModifyRootUser
	}
	if status == UserInactive {
		return wire.CannotModifyRootUser
	}
	return wire.OK
}
