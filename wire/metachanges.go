package wire

import (
	"encoding/hex"
	"strings"
)

// GetMetadataChanges (code 17, NR) reads the metadata change log (MCL-5).
// The public documents give no byte layout; ours (DESIGN.md, "Wire layouts
// we chose") is
//
//	request: [start u8][groups u16][from_micros u64][to_micros u64][limit u32][token Str8]
//	reply:   [status u8][has_more u8][cursor Str8][page_token Str8][count u32],
//	         then count × [seq u64][op u64][time_micros u64][group u8]
//	         [has_user u8][user_id u32][kind Str8][body Str32]
//
// start: 0 earliest, 1 latest, 2 after the cursor in token (an mc1_ token),
// 3 current (token empty on the first page, else the cs1_ token of the
// previous page). groups is a bit set over ChangeGroup (0 = every group).
// to_micros 0 means no upper bound. A record's body is a JSON object.
// In a `current` page the items use the record shape with seq 0.

// ChangeStart is where a GetMetadataChanges request starts.
type ChangeStart uint8

const (
	ChangeStartEarliest ChangeStart = 0
	ChangeStartLatest   ChangeStart = 1
	ChangeStartCursor   ChangeStart = 2
	ChangeStartCurrent  ChangeStart = 3
)

// ChangeGroup is the group a record belongs to (MCL-12).
type ChangeGroup uint8

const (
	GroupStreams ChangeGroup = iota
	GroupTopics
	GroupPartitions
	GroupConsumerGroups
	GroupConsumerGroupMembers
	GroupUsers
	GroupPersonalAccessTokens
	GroupSessions
	changeGroupCount
)

// ChangeGroupNames are the groups' names, indexed by ChangeGroup.
var ChangeGroupNames = [changeGroupCount]string{
	"streams", "topics", "partitions", "consumer_groups", "consumer_group_members",
	"users", "personal_access_tokens", "sessions",
}

// ChangeGroupsAll is the bit set of every group.
const ChangeGroupsAll uint16 = 1<<changeGroupCount - 1

// ChangeGroupByName returns the group a name selects.
func ChangeGroupByName(name string) (ChangeGroup, bool) {
	for i, n := range ChangeGroupNames {
		if n == name {
			return ChangeGroup(i), true
		}
	}
	return 0, false
}

// ChangeStatus is the status of a GetMetadataChanges answer (MCL-21..24).
type ChangeStatus uint8

const (
	ChangeStatusOK      ChangeStatus = 0
	ChangeStatusBehind  ChangeStatus = 1
	ChangeStatusExpired ChangeStatus = 2
	ChangeStatusReset   ChangeStatus = 3
)

// ChangeStatusNames are the statuses' names, indexed by ChangeStatus.
var ChangeStatusNames = [...]string{"ok", "behind", "expired", "reset"}

const (
	// ChangeLimitMax bounds a request's limit (MCL-14).
	ChangeLimitMax = 1000
	// ChangePageBytesMax is where a page ends (MCL-18).
	ChangePageBytesMax    = 1 << 20
	changeRequestBytesMin = 1 + 2 + 8 + 8 + 4 + 1
	// changeRecordFixedBytes is a record's size without its kind and body.
	changeRecordFixedBytes = 8 + 8 + 8 + 1 + 1 + 4 + 1 + 4
)

// ChangesRequest is a decoded GetMetadataChanges request.
type ChangesRequest struct {
	Start      ChangeStart
	Groups     uint16 // bit set; 0 = all
	FromMicros uint64
	ToMicros   uint64 // 0 = no bound
	Limit      uint32
	Token      string
}

// HasTimeRange reports whether the request bounds the records' times.
func (q ChangesRequest) HasTimeRange() bool { return q.FromMicros != 0 || q.ToMicros != 0 }

// Selects reports whether the request reads group g.
func (q ChangesRequest) Selects(g ChangeGroup) bool {
	return q.Groups == 0 || q.Groups&(1<<g) != 0
}

// EncodeChangesRequest writes a request body.
func EncodeChangesRequest(w *Writer, q ChangesRequest) {
	w.U8(uint8(q.Start))
	w.U16(q.Groups)
	w.U64(q.FromMicros)
	w.U64(q.ToMicros)
	w.U32(q.Limit)
	w.Str8(q.Token)
}

// DecodeChangesRequest reads a request body. Layout errors and every rule
// that needs no state are 3: an unknown start or group bit, a limit outside
// 1..1000, a time range with latest or current (MCL-16), an inverted range,
// a token missing, present where none belongs, or of the wrong kind.
func DecodeChangesRequest(body []byte) (ChangesRequest, Code) {
	r := NewReader(body)
	q := ChangesRequest{Start: ChangeStart(r.U8()), Groups: r.U16(), FromMicros: r.U64(), ToMicros: r.U64(), Limit: r.U32(), Token: r.Str8()}
	if code := finish(r); code != OK {
		return ChangesRequest{}, code
	}
	if q.Start > ChangeStartCurrent || q.Groups&^ChangeGroupsAll != 0 || q.Limit < 1 || q.Limit > ChangeLimitMax {
		return ChangesRequest{}, InvalidCommand
	}
	if q.ToMicros != 0 && q.FromMicros > q.ToMicros {
		return ChangesRequest{}, InvalidCommand
	}
	if q.HasTimeRange() && (q.Start == ChangeStartLatest || q.Start == ChangeStartCurrent) {
		return ChangesRequest{}, InvalidCommand
	}
	if !tokenFits(q.Start, q.Token) {
		return ChangesRequest{}, InvalidCommand
	}
	if q.Start == ChangeStartCurrent && !parentsSelected(q) {
		return ChangesRequest{}, InvalidCommand
	}
	return q, OK
}

// changeGroupParent is each group's parent in the present state (a group
// is its own parent at the root).
var changeGroupParent = [changeGroupCount]ChangeGroup{
	GroupStreams: GroupStreams, GroupTopics: GroupStreams, GroupPartitions: GroupTopics,
	GroupConsumerGroups: GroupTopics, GroupConsumerGroupMembers: GroupConsumerGroups,
	GroupUsers: GroupUsers, GroupPersonalAccessTokens: GroupUsers, GroupSessions: GroupUsers,
}

// parentsSelected checks that a current request names the parent groups
// of every group it names (MCL-17).
func parentsSelected(q ChangesRequest) bool {
	for g := range changeGroupCount {
		if q.Selects(g) && !q.Selects(changeGroupParent[g]) {
			return false
		}
	}
	return true
}

// tokenFits checks the token against the start: a cursor start needs an
// mc1_ token, current takes a cs1_ token or none, the others take none.
func tokenFits(start ChangeStart, token string) bool {
	switch start {
	case ChangeStartCursor:
		_, ok := ParseChangeCursor(token)
		return ok
	case ChangeStartCurrent:
		if token == "" {
			return true
		}
		_, ok := ParseStatePageToken(token)
		return ok
	}
	return token == ""
}

// ChangeRecord is one record of the log, or one item of a current page.
type ChangeRecord struct {
	Seq        uint64 // position in the log, from 1; 0 for a current item
	Op         uint64 // the metadata op that produced it (current: the entity's creation op)
	TimeMicros uint64
	Group      ChangeGroup
	HasUser    bool // false for server actions (MCL-27)
	UserID     uint32
	Kind       string // e.g. "stream.created"
	Body       []byte // JSON object
}

// EncodedBytes is the record's size on the wire.
func (c ChangeRecord) EncodedBytes() int { return changeRecordFixedBytes + len(c.Kind) + len(c.Body) }

// ChangesReply is a GetMetadataChanges answer.
type ChangesReply struct {
	Status    ChangeStatus
	HasMore   bool
	Cursor    string // mc1_ token; empty with expired and reset
	PageToken string // cs1_ token of the next current page; empty when none
	Records   []ChangeRecord
}

// EncodeChangesReply writes a reply body.
func EncodeChangesReply(w *Writer, p ChangesReply) {
	w.U8(uint8(p.Status))
	w.Bool(p.HasMore)
	w.Str8(p.Cursor)
	w.Str8(p.PageToken)
	w.U32(uint32(len(p.Records)))
	for _, c := range p.Records {
		w.U64(c.Seq)
		w.U64(c.Op)
		w.U64(c.TimeMicros)
		w.U8(uint8(c.Group))
		w.Bool(c.HasUser)
		w.U32(c.UserID)
		w.Str8(c.Kind)
		w.U32(uint32(len(c.Body)))
		w.Bytes(c.Body)
	}
}

// DecodeChangesReply reads a reply body (client side).
func DecodeChangesReply(body []byte) (ChangesReply, Code) {
	r := NewReader(body)
	p := ChangesReply{Status: ChangeStatus(r.U8()), HasMore: strictBool(r), Cursor: r.Str8(), PageToken: r.Str8()}
	count := r.U32()
	if r.Err() != OK || uint64(count)*changeRecordFixedBytes > uint64(r.Len()) || p.Status > ChangeStatusReset {
		return ChangesReply{}, InvalidCommand
	}
	p.Records = make([]ChangeRecord, 0, count)
	for range count {
		c := ChangeRecord{Seq: r.U64(), Op: r.U64(), TimeMicros: r.U64(), Group: ChangeGroup(r.U8()), HasUser: strictBool(r), UserID: r.U32(), Kind: r.Str8()}
		c.Body = r.Bytes(int(r.U32()))
		if c.Group >= changeGroupCount {
			r.Fail(InvalidCommand)
		}
		p.Records = append(p.Records, c)
	}
	if code := finish(r); code != OK {
		return ChangesReply{}, code
	}
	return p, OK
}

// ChangeCursor is a position in one history of the log: the history's id,
// the last record seq delivered and the op the log had applied then.
type ChangeCursor struct {
	History uint64
	Seq     uint64
	Op      uint64
}

// StatePageToken continues a current walk: the anchor cursor the walk
// started at and the next position. Phase 0 walks streams (Major = stream
// id; Minor 0 = the stream's own item, t+1 = topic t), phase 1 users
// (Major = user id); Item is the index of the next item of that unit.
type StatePageToken struct {
	Anchor ChangeCursor
	Phase  uint8
	Major  uint32
	Minor  uint32
	Item   uint32
}

const (
	cursorPrefix    = "mc1_"
	pageTokenPrefix = "cs1_"
)

// String is the mc1_ token: the prefix and 24 bytes in lower-case hex.
func (c ChangeCursor) String() string {
	w := &Writer{}
	c.put(w)
	return cursorPrefix + hex.EncodeToString(w.Buf)
}

func (c ChangeCursor) put(w *Writer) {
	w.U64(c.History)
	w.U64(c.Seq)
	w.U64(c.Op)
}

// ParseChangeCursor accepts exactly the tokens String writes (MCL-15).
func ParseChangeCursor(s string) (ChangeCursor, bool) {
	r, ok := tokenBody(s, cursorPrefix, 24)
	if !ok {
		return ChangeCursor{}, false
	}
	c := ChangeCursor{History: r.U64(), Seq: r.U64(), Op: r.U64()}
	return c, c.History != 0
}

// String is the cs1_ token.
func (t StatePageToken) String() string {
	w := &Writer{}
	t.Anchor.put(w)
	w.U8(t.Phase)
	w.U32(t.Major)
	w.U32(t.Minor)
	w.U32(t.Item)
	return pageTokenPrefix + hex.EncodeToString(w.Buf)
}

// ParseStatePageToken accepts exactly the tokens String writes (MCL-15).
func ParseStatePageToken(s string) (StatePageToken, bool) {
	r, ok := tokenBody(s, pageTokenPrefix, 24+1+12)
	if !ok {
		return StatePageToken{}, false
	}
	t := StatePageToken{Anchor: ChangeCursor{History: r.U64(), Seq: r.U64(), Op: r.U64()}, Phase: r.U8(), Major: r.U32(), Minor: r.U32(), Item: r.U32()}
	return t, t.Anchor.History != 0 && t.Phase <= 1
}

// tokenBody checks the prefix and the canonical lower-case hex of n bytes.
func tokenBody(s, prefix string, n int) (*Reader, bool) {
	hexPart, ok := strings.CutPrefix(s, prefix)
	if !ok || len(hexPart) != 2*n {
		return nil, false
	}
	b, err := hex.DecodeString(hexPart)
	if err != nil || hex.EncodeToString(b) != hexPart {
		return nil, false
	}
	return NewReader(b), true
}

// strictBool reads a u8 that must be 0 or 1.
func strictBool(r *Reader) bool {
	v := r.U8()
	if v > 1 {
		r.Fail(InvalidCommand)
	}
	return v == 1
}
