package wire

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/iggygo/iggy/internal/assert"
)

// UpdateResource (code 16, operation 150) patches one stream, topic or user
// (RES-5). The public documents give no layout; ours (DESIGN.md, "Wire
// layouts we chose") is
//
//	[scope u8: 1 topic, 2 stream, 3 user]
//	[target: topic = stream Identifier + topic Identifier,
//	         stream = stream Identifier, user = user Identifier]
//	[set_len u32][set: options TLV block of set_len bytes]
//	[reset_count u8][reset_count × key as a WireName]
//
// and nothing after it. Besides the scope's catalog keys, the set block
// carries the identity keys the README lists as updatable (RES-9): name for
// streams and topics, username and status for users.

// Identity keys: updatable through the set block, never resettable.
const (
	ResourceKeyName     = "name"
	ResourceKeyUsername = "username"
	ResourceKeyStatus   = "status"
)

// ResetKeysMax bounds the reset list; its count travels as a u8.
const ResetKeysMax = 255

// userStatusWords are the String spellings of a user status (index = value).
var userStatusWords = []string{UserStatusActive: "active", UserStatusInactive: "inactive"}

// UpdateResourceRequest is the decoded body. Only the identifiers the scope
// names are meaningful; Reset keeps the wire order.
type UpdateResourceRequest struct {
	Scope  OptionScope
	Stream Identifier // ScopeTopic, ScopeStream
	Topic  Identifier // ScopeTopic
	User   Identifier // ScopeUser
	Set    Options
	Reset  []string
}

// DecodeUpdateResourceRequest reads the body. Every structural failure is 3:
// an unknown scope, a bad identifier, a set block that overruns or breaks the
// TLV rules (duplicate keys included), a bad or duplicate reset key, or bytes
// after the reset list.
func DecodeUpdateResourceRequest(body []byte) (UpdateResourceRequest, Code) {
	r := NewReader(body)
	q := UpdateResourceRequest{Scope: OptionScope(r.U8())}
	if r.Err() != OK {
		return UpdateResourceRequest{}, InvalidCommand
	}
	switch q.Scope {
	case ScopeTopic:
		q.Stream, q.Topic = r.Identifier(), r.Identifier()
	case ScopeStream:
		q.Stream = r.Identifier()
	case ScopeUser:
		q.User = r.Identifier()
	default:
		return UpdateResourceRequest{}, InvalidCommand
	}
	q.Set = r.OptionsPrefixed()
	q.Reset = readResetKeys(r)
	if r.Err() != OK || r.Len() != 0 {
		return UpdateResourceRequest{}, InvalidCommand
	}
	return q, OK
}

// readResetKeys reads [count u8] and count distinct WireNames.
func readResetKeys(r *Reader) []string {
	count := int(r.U8())
	if r.Err() != OK || count == 0 {
		return nil
	}
	keys := make([]string, 0, count)
	for range count {
		k := r.Name()
		if r.Err() != OK {
			return nil
		}
		for _, seen := range keys {
			if seen == k {
				r.Fail(InvalidCommand)
				return nil
			}
		}
		keys = append(keys, k)
	}
	return keys
}

// Encode writes the body. The caller has checked Set (Options.Check) and the
// reset keys (1..255 bytes each, at most ResetKeysMax).
func (q UpdateResourceRequest) Encode(w *Writer) {
	if len(q.Reset) > ResetKeysMax {
		assert.Failf("%d reset keys", len(q.Reset))
	}
	w.U8(uint8(q.Scope))
	switch q.Scope {
	case ScopeTopic:
		w.Identifier(q.Stream)
		w.Identifier(q.Topic)
	case ScopeStream:
		w.Identifier(q.Stream)
	case ScopeUser:
		w.Identifier(q.User)
	default:
		assert.Failf("scope %d", q.Scope)
	}
	w.U32(uint32(q.Set.EncodedSize()))
	w.OptionsInOrder(q.Set)
	w.U8(uint8(len(q.Reset)))
	for _, k := range q.Reset {
		writeName(w, k)
	}
}

// ResourcePatch is an admitted request: what the replicated op carries.
type ResourcePatch struct {
	Name   string     // new stream or topic name, or username; "" = unchanged
	Status UserStatus // 0 = unchanged
	Set    Options    // catalog keys in their canonical kinds, sorted by key
	Reset  Options    // each reset key with its canonical default, sorted by key
}

// AdmitUpdateResource applies the pre-consensus rules to a decoded request:
// 3 for a key both set and reset (RES-7); for a set key 4041 outside the
// scope, 4105 read-only (RES-13), 4103 fixed at create (RES-10, RES-11),
// 4042 a bad value; for a reset key 4041 outside the scope, 4105 read-only,
// 4104 not resettable (RES-12). A sentinel value (0 = server default) counts
// as a reset, as it counts as absent at create. Keys are checked set block
// first, each list in wire order, so the code is deterministic.
func AdmitUpdateResource(q UpdateResourceRequest) (ResourcePatch, Code) {
	cat, code := CatalogFor(q.Scope)
	if code != OK {
		return ResourcePatch{}, code
	}
	for _, k := range q.Reset {
		if _, both := q.Set.Get(k); both {
			return ResourcePatch{}, InvalidCommand
		}
	}
	var p ResourcePatch
	for _, e := range q.Set {
		if code := p.admitSet(cat, e); code != OK {
			return ResourcePatch{}, code
		}
	}
	for _, k := range q.Reset {
		d, code := resetEntry(cat, k)
		if code != OK {
			return ResourcePatch{}, code
		}
		p.Reset = append(p.Reset, d)
	}
	p.Set, p.Reset = p.Set.Sorted(), p.Reset.Sorted()
	return p, OK
}

// admitSet admits one set entry into p.
func (p *ResourcePatch) admitSet(cat *Catalog, e Option) Code {
	if isIdentityKey(cat.Scope, e.Key) {
		return p.setIdentity(e)
	}
	spec, ok := cat.Spec(e.Key)
	switch {
	case !ok:
		return UnsupportedOptionKey
	case spec.ReadOnly:
		return ReadOnlyOption
	case !spec.Updatable:
		return OptionNotUpdatable
	}
	canonical, absent, ok := spec.parse(e.Kind, e.Value)
	if !ok {
		return InvalidOptionValue
	}
	if absent {
		d, code := resetEntry(cat, e.Key)
		if code != OK {
			return InvalidOptionValue // a sentinel only means "default" where one exists
		}
		p.Reset = append(p.Reset, d)
		return OK
	}
	p.Set = append(p.Set, Option{Key: spec.Key, Kind: spec.Kind, Value: canonical})
	return OK
}

// setIdentity reads name, username (a UTF-8 String; the username length rule
// is applied when the op commits, 43) or status (String active/inactive in
// any case, or Uint8 1/2).
func (p *ResourcePatch) setIdentity(e Option) Code {
	switch e.Key {
	case ResourceKeyName, ResourceKeyUsername:
		if e.Kind != KindString || !utf8.Valid(e.Value) {
			return InvalidOptionValue
		}
		p.Name = string(e.Value)
	case ResourceKeyStatus:
		s, ok := parseUserStatus(e.Kind, e.Value)
		if !ok {
			return InvalidOptionValue
		}
		p.Status = s
	}
	return OK
}

func parseUserStatus(kind ValueKind, v []byte) (UserStatus, bool) {
	switch {
	case kind == KindUint8 && len(v) == 1:
		s := UserStatus(v[0])
		return s, s == UserStatusActive || s == UserStatusInactive
	case kind == KindString:
		i := wordIndex(userStatusWords, strings.ToLower(string(v)))
		return UserStatus(i), i != 0
	}
	return 0, false
}

// UserStatusWord is the String value of a status key (client side).
func UserStatusWord(s UserStatus) string {
	if !(s == UserStatusActive || s == UserStatusInactive) {
		assert.Failf("user status %d", s)
	}
	return userStatusWords[s]
}

// resetEntry returns key with its canonical default, the entry the metadata
// stores as derived once the reset commits.
func resetEntry(cat *Catalog, key string) (Option, Code) {
	if isIdentityKey(cat.Scope, key) {
		return Option{}, OptionNotResettable
	}
	spec, ok := cat.Spec(key)
	switch {
	case !ok:
		return Option{}, UnsupportedOptionKey
	case spec.ReadOnly:
		return Option{}, ReadOnlyOption
	case !spec.Resettable || spec.Default == nil:
		return Option{}, OptionNotResettable
	}
	return Option{Key: spec.Key, Kind: spec.Kind, Value: bytes.Clone(spec.Default)}, OK
}

// isIdentityKey reports whether key is an identity key of scope (RES-9).
func isIdentityKey(scope OptionScope, key string) bool {
	switch scope {
	case ScopeStream, ScopeTopic:
		return key == ResourceKeyName
	case ScopeUser:
		return key == ResourceKeyUsername || key == ResourceKeyStatus
	}
	return false
}
