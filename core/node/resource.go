package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// buildUpdateResource admits UpdateResource (code 16, operation 150; RES-5):
// the structural, key and value rules of wire.AdmitUpdateResource come before
// consensus. The logged op carries the set keys in their canonical kinds and,
// for each reset key, the default entry the metadata stores as derived. Rules
// that depend on state (missing target, authorization, name clashes, the
// root guard 4108, max_topic_size against segment_size) are checked when the
// op applies, so every replica commits the same result.
func (n *Node) buildUpdateResource(body []byte) (metadata.Command, string, wire.Code) {
	q, code := wire.DecodeUpdateResourceRequest(body)
	if code != wire.OK {
		return nil, "", code
	}
	p, code := wire.AdmitUpdateResource(q)
	if code == wire.OK && !wire.NamePrintable(p.Name) {
		code = invalidNameCode(q.Scope)
	}
	if code != wire.OK {
		return nil, "", code
	}
	return &metadata.UpdateResource{
		Scope: metadataScope(q.Scope), Stream: q.Stream, Topic: q.Topic, User: q.User,
		Name: p.Name, Status: metadataUserStatus(p.Status),
		Set: encodeOptions(p.Set), Reset: encodeOptions(p.Reset),
	}, "", wire.OK
}

// invalidNameCode is the code refusing a new name (or username) of scope.
func invalidNameCode(s wire.OptionScope) wire.Code {
	switch s {
	case wire.ScopeTopic:
		return wire.InvalidTopicName
	case wire.ScopeStream:
		return wire.InvalidStreamName
	}
	return wire.InvalidUsername
}

// metadataScope maps a decoded scope; the decoder refuses every other value.
func metadataScope(s wire.OptionScope) metadata.Scope {
	switch s {
	case wire.ScopeTopic:
		return metadata.ScopeTopic
	case wire.ScopeStream:
		return metadata.ScopeStream
	case wire.ScopeUser:
		return metadata.ScopeUser
	}
	assert.Failf("scope %d passed the decoder", s)
	return 0
}

// metadataUserStatus maps an admitted status; 0 leaves the status unchanged.
func metadataUserStatus(s wire.UserStatus) metadata.UserStatus {
	switch s {
	case wire.UserStatusActive:
		return metadata.UserActive
	case wire.UserStatusInactive:
		return metadata.UserInactive
	}
	if s != 0 {
		assert.Failf("user status %d passed admission", s)
	}
	return 0
}
