package metadata

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/wire"
)

// optKeyWraps is the internal options entry holding an encrypted stream's
// key wraps: never shown (MCL-28, ENC-12).
const optKeyWraps = "encryption_key_wraps"

// ref names one incarnation of a stream or topic (MCL-26): ids are reused.
type ref struct {
	ID        uint32 `json:"id"`
	CreatedOp uint64 `json:"created_op,omitempty"` // streams and topics only
	Name      string `json:"name,omitempty"`
}

// subject is what a command names, resolved before it applies, so a delete
// can still say what it deleted.
type subject struct {
	stream, topic *ref
	group         *ref
	user          *ref
	pruned        []uint32 // users holding grants a delete prunes (MCL-2)
	expired       []*PersonalAccessToken
	// before is the view of the entity an update names, so an update that
	// changes nothing records nothing (MCL-3).
	before []byte
}

// changeBody is a record's JSON body; absent parts are omitted.
type changeBody struct {
	Stream     *ref              `json:"stream,omitempty"`
	Topic      *ref              `json:"topic,omitempty"`
	Group      *ref              `json:"consumer_group,omitempty"`
	User       *ref              `json:"user,omitempty"`
	Options    map[string]any    `json:"options,omitempty"`
	Partitions *uint32           `json:"partitions_count,omitempty"`
	Partition  *uint32           `json:"partition_id,omitempty"`
	Member     *memberJSON       `json:"member,omitempty"`
	Status     string            `json:"status,omitempty"`
	Token      string            `json:"token_name,omitempty"`
	Expiry     *uint64           `json:"expiry_at,omitempty"`
	Perms      *wire.Permissions `json:"permissions,omitempty"`
}

type memberJSON struct {
	ClientLo uint64 `json:"client_lo"`
	ClientHi uint64 `json:"client_hi"`
}

func streamRef(st *Stream) *ref { return &ref{ID: st.ID, CreatedOp: st.CreatedOp, Name: st.Name} }
func topicRef(t *Topic) *ref    { return &ref{ID: t.ID, CreatedOp: t.CreatedOp, Name: t.Name} }

// namedEntities returns the identifiers a command names.
func namedEntities(cmd Command) (stream, topic, group, user *wire.Identifier) {
	switch c := cmd.(type) {
	case *UpdateStream:
		return &c.Stream, nil, nil, nil
	case *DeleteStream:
		return &c.Stream, nil, nil, nil
	case *PurgeStream:
		return &c.Stream, nil, nil, nil
	case *UpdateTopic:
		return &c.Stream, &c.Topic, nil, nil
	case *DeleteTopic:
		return &c.Stream, &c.Topic, nil, nil
	case *PurgeTopic:
		return &c.Stream, &c.Topic, nil, nil
	case *CreatePartitions:
		return &c.Stream, &c.Topic, nil, nil
	case *DeletePartitions:
		return &c.Stream, &c.Topic, nil, nil
	case *TruncatePartition:
		return &c.Stream, &c.Topic, nil, nil
	case *DeleteConsumerGroup:
		return &c.Stream, &c.Topic, &c.Group, nil
	case *JoinConsumerGroup:
		return &c.Stream, &c.Topic, &c.Group, nil
	case *LeaveConsumerGroup:
		return &c.Stream, &c.Topic, &c.Group, nil
	case *CompleteRevocation:
		return &c.Stream, &c.Topic, &c.Group, nil
	case *UpdateUser:
		return nil, nil, nil, &c.User
	case *DeleteUser:
		return nil, nil, nil, &c.User
	case *ChangePassword:
		return nil, nil, nil, &c.User
	case *UpdatePermissions:
		return nil, nil, nil, &c.User
	case *UpdateResource:
		if c.Scope == ScopeUser {
			return nil, nil, nil, &c.User
		}
		if c.Scope == ScopeTopic {
			return &c.Stream, &c.Topic, nil, nil
		}
		return &c.Stream, nil, nil, nil
	}
	return nil, nil, nil, nil
}

// subjectOf resolves the entities a command names, as they are before it.
func (s *State) subjectOf(ctx Ctx, cmd Command) subject {
	var sub subject
	streamID, topicID, groupID, userID := namedEntities(cmd)
	switch c := cmd.(type) {
	case *SetStreamKeyOptions:
		if i, ok := search(s.streams, c.Stream, streamKey); ok {
			sub.stream = streamRef(s.streams[i])
			sub.before, _ = json.Marshal(streamBody(s.streams[i]))
		}
	case *DeleteExpiredTokens:
		sub.expired = s.expiredTokens(ctx.NowMicros)
	}
	if userID != nil {
		if u, _, ok := s.findUser(*userID); ok {
			sub.user = &ref{ID: u.ID, Name: u.Username}
			sub.before, _ = json.Marshal(userBody(u))
		}
	}
	if streamID == nil {
		return sub
	}
	st, _, ok := s.findStream(*streamID)
	if !ok {
		return sub
	}
	sub.stream = streamRef(st)
	if topicID == nil {
		sub.pruned = s.grantHolders(st.ID, nil)
		sub.before, _ = json.Marshal(streamBody(st))
		return sub
	}
	t, _, ok := st.findTopic(*topicID)
	if !ok {
		return sub
	}
	sub.topic = topicRef(t)
	if groupID == nil {
		sub.pruned = s.grantHolders(st.ID, &t.ID)
		sub.before, _ = json.Marshal(topicBody(st, t))
		return sub
	}
	if g, _, ok := t.findGroup(*groupID); ok {
		sub.group = &ref{ID: g.ID, Name: g.Name}
	}
	return sub
}

// expiredTokens lists the tokens expired at nowMicros, by user then name.
func (s *State) expiredTokens(nowMicros uint64) []*PersonalAccessToken {
	var out []*PersonalAccessToken
	for _, u := range s.users {
		for _, t := range u.tokens {
			if t.Expired(nowMicros) {
				out = append(out, t)
			}
		}
	}
	return out
}

// grantHolders lists, ascending, the users with a grant on the stream (or
// on one topic of it), whose grants a delete prunes.
func (s *State) grantHolders(stream uint32, topic *uint32) []uint32 {
	var ids []uint32
	for _, u := range s.users {
		if u.Permissions == nil {
			continue
		}
		sp, ok := u.Permissions.Streams[stream]
		if !ok {
			continue
		}
		if topic != nil {
			if _, ok := sp.Topics[*topic]; !ok {
				continue
			}
		}
		ids = append(ids, u.ID)
	}
	return ids
}

// serverAction reports the commands the node submits on its own: their
// records carry no acting user (MCL-27).
func serverAction(k Kind) bool {
	switch k {
	case KindRemoveMember, KindCompleteRevocation, KindDeleteExpiredTokens, KindSetStreamKeyOptions:
		return true
	}
	return false
}

// emit appends one record of the command's public result.
func (s *State) emit(ctx Ctx, cmd Command, g wire.ChangeGroup, kind string, b changeBody) {
	s.emitChanged(ctx, cmd, g, kind, b, nil)
}

// emitChanged is emit unless the body equals before (an update that
// changed nothing).
func (s *State) emitChanged(ctx Ctx, cmd Command, g wire.ChangeGroup, kind string, b changeBody, before []byte) {
	body, err := json.Marshal(b)
	if err != nil || bytes.Equal(body, before) {
		return // err: every field is a plain value, so it cannot happen
	}
	rec := wire.ChangeRecord{Group: g, Kind: kind, Body: body}
	if !serverAction(cmd.Kind()) {
		rec.HasUser, rec.UserID = true, ctx.UserID
	}
	s.appendChange(ctx, rec)
}

// streamOptionsView is a stream's options as the read routes show them
// (MCL-28): never the wraps, but the fingerprints of the keys that wrap.
func streamOptionsView(st *Stream) map[string]any {
	opts, _ := wire.DecodeOptions(st.Options)
	view := map[string]any{}
	for _, o := range opts {
		if o.Key == optKeyWraps {
			if ws, err := streamkey.DecodeWraps(o.Value); err == nil {
				fps := make([]string, len(ws))
				for i, w := range ws {
					fps[i] = w.KEKFingerprint
				}
				view[wire.OptEncryptionKEKFingerprint] = strings.Join(fps, ",")
			}
			continue
		}
		view[o.Key] = optionValueJSON(o)
	}
	if len(view) == 0 {
		return nil
	}
	return view
}

// optionValueJSON renders one option value: text and numbers as such,
// anything else as hex.
func optionValueJSON(o wire.Option) any {
	switch o.Kind {
	case wire.KindString:
		return string(o.Value)
	case wire.KindBool:
		return len(o.Value) == 1 && o.Value[0] == 1
	case wire.KindUint8, wire.KindUint16, wire.KindUint32, wire.KindUint64:
		var v uint64
		for i := len(o.Value) - 1; i >= 0; i-- {
			v = v<<8 | uint64(o.Value[i])
		}
		return v
	}
	return hex.EncodeToString(o.Value)
}

func topicOptionsView(t *Topic) map[string]any {
	view := map[string]any{}
	for _, block := range [][]byte{t.DerivedOptions, t.ExplicitOptions} {
		opts, _ := wire.DecodeOptions(block)
		for _, o := range opts {
			view[o.Key] = optionValueJSON(o)
		}
	}
	if len(view) == 0 {
		return nil
	}
	return view
}

func u32p(v uint32) *uint32 { return &v }

// SessionChange is a session's start or end as the client table applied
// it (the client table lives in the node, its ops are the metadata
// group's Register and Logout prepares).
type SessionChange struct {
	Client  ClientID
	Session uint64
	// Previous is the session a start replaced under the same client id.
	Previous uint64
	// Reason says why a session ended: logout, expired, user_deleted or
	// user_deactivated.
	Reason string
	// ByUser: the session's own user acted (a login or a logout); false
	// for server actions such as lease expiry (MCL-27).
	ByUser bool
	User   uint32
}

type sessionJSON struct {
	ClientLo uint64 `json:"client_lo"`
	ClientHi uint64 `json:"client_hi"`
	Session  uint64 `json:"session"`
	Previous uint64 `json:"previous_session,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// RecordSession appends the record of a session's start ("session.started")
// or end ("session.ended") to the activity ring (MCL-1, MCL-30). It runs at
// the op that committed it on every replica alike, so it advances the op
// cursors carry, as a command does.
func (s *State) RecordSession(ctx Ctx, started bool, c SessionChange) {
	kind := "session.ended"
	if started {
		kind = "session.started"
	}
	b := struct {
		Session sessionJSON `json:"session"`
		User    ref         `json:"user"`
	}{sessionJSON{ClientLo: c.Client.Lo, ClientHi: c.Client.Hi, Session: c.Session, Previous: c.Previous, Reason: c.Reason}, ref{ID: c.User}}
	body, err := json.Marshal(b)
	if err != nil {
		return // every field is a plain value, so it cannot happen
	}
	s.lastOp = max(s.lastOp, ctx.Op)
	rec := wire.ChangeRecord{Group: wire.GroupSessions, Kind: kind, Body: body}
	if c.ByUser {
		rec.HasUser, rec.UserID = true, ctx.UserID
	}
	s.appendChange(ctx, rec)
}
