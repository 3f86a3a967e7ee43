package metadata

import (
	"encoding/json"

	"github.com/iggygo/iggy/wire"
)

// changeWalkEntriesMax is the streams and topics one current page walks
// (MCL-20): a page may then carry a page token and no items.
const changeWalkEntriesMax = 65536

// pager gathers the items of one current page under its limit and bytes.
type pager struct {
	q     wire.ChangesRequest
	out   wire.ChangesReply
	bytes int
	next  wire.StatePageToken
	full  bool
}

// Current answers a current request (MCL-11, MCL-25): the present state,
// page by page, with the anchor cursor from which history follows.
func (s *State) Current(q wire.ChangesRequest) wire.ChangesReply {
	tok := wire.StatePageToken{Anchor: s.endCursor()}
	if q.Token != "" {
		tok, _ = wire.ParseStatePageToken(q.Token)
		if tok.Anchor.History != s.endCursor().History {
			return wire.ChangesReply{Status: wire.ChangeStatusReset}
		}
		if tok.Anchor.Op > s.lastOp {
			return wire.ChangesReply{Status: wire.ChangeStatusBehind}
		}
	}
	p := &pager{q: q, out: wire.ChangesReply{Status: wire.ChangeStatusOK, Cursor: tok.Anchor.String()}, next: tok}
	if tok.Phase == 0 {
		s.walkStreams(p)
	}
	if !p.full {
		if tok.Phase == 0 {
			p.next = wire.StatePageToken{Anchor: tok.Anchor, Phase: 1} // users from the first
		}
		s.walkUsers(p)
	}
	if p.full {
		p.out.HasMore, p.out.PageToken = true, p.next.String()
	}
	return p.out
}

// endCursor is the cursor at the end of the log.
func (s *State) endCursor() wire.ChangeCursor {
	h := s.changes.history
	if h == 0 {
		h = emptyHistory
	}
	return wire.ChangeCursor{History: h, Seq: s.changes.lastSeq, Op: s.lastOp}
}

// unit offers the items of one unit from the token's item index on; it
// reports false once the page is full (the token then names the position).
func (p *pager) unit(major, minor uint32, items []wire.ChangeRecord) bool {
	first := 0
	if p.next.Major == major && p.next.Minor == minor {
		first = int(p.next.Item)
	}
	for i := first; i < len(items); i++ {
		size := items[i].EncodedBytes()
		if len(p.out.Records) == int(p.q.Limit) || (len(p.out.Records) > 0 && p.bytes+size > wire.ChangePageBytesMax) {
			p.next.Major, p.next.Minor, p.next.Item, p.full = major, minor, uint32(i), true
			return false
		}
		p.out.Records = append(p.out.Records, items[i])
		p.bytes += size
	}
	return true
}

func (s *State) walkStreams(p *pager) {
	start, _ := search(s.streams, p.next.Major, streamKey)
	walked := 0
	for _, st := range s.streams[start:] {
		resume := st.ID == p.next.Major
		if !resume || p.next.Minor == 0 {
			if !p.unit(st.ID, 0, p.items(wire.GroupStreams, st.CreatedOp, "stream", streamBody(st))) {
				return
			}
		}
		for _, t := range st.Topics {
			if resume && t.ID+1 < p.next.Minor {
				continue
			}
			if walked++; walked > changeWalkEntriesMax {
				p.next.Major, p.next.Minor, p.next.Item, p.full = st.ID, t.ID+1, 0, true
				return
			}
			if !p.unit(st.ID, t.ID+1, p.topicItems(st, t)) {
				return
			}
		}
		if walked++; walked > changeWalkEntriesMax {
			p.next.Major, p.next.Minor, p.next.Item, p.full = st.ID+1, 0, 0, true
			return
		}
	}
}

func (s *State) walkUsers(p *pager) {
	start, _ := search(s.users, p.next.Major, userKey)
	for _, u := range s.users[start:] {
		items := p.items(wire.GroupUsers, 0, "user", userBody(u))
		for _, tk := range u.tokens {
			b := changeBody{User: &ref{ID: u.ID}, Token: tk.Name}
			if tk.ExpiryAtMicros != 0 {
				b.Expiry = &tk.ExpiryAtMicros
			}
			items = append(items, p.items(wire.GroupPersonalAccessTokens, 0, "personal_access_token", b)...)
		}
		if !p.unit(u.ID, 0, items) {
			p.next.Phase = 1
			return
		}
	}
}

// topicItems are a topic's items: itself, its partitions, groups, members.
func (p *pager) topicItems(st *Stream, t *Topic) []wire.ChangeRecord {
	items := p.items(wire.GroupTopics, t.CreatedOp, "topic", topicBody(st, t))
	items = append(items, p.items(wire.GroupPartitions, t.CreatedOp, "partitions",
		changeBody{Stream: streamRef(st), Topic: topicRef(t), Partitions: u32p(uint32(len(t.Partitions)))})...)
	for _, g := range t.Groups {
		gb := changeBody{Stream: streamRef(st), Topic: topicRef(t), Group: &ref{ID: g.ID, Name: g.Name}}
		items = append(items, p.items(wire.GroupConsumerGroups, t.CreatedOp, "consumer_group", gb)...)
		for _, m := range g.Members {
			mb := gb
			mb.Member = &memberJSON{ClientLo: m.Client.Lo, ClientHi: m.Client.Hi}
			items = append(items, p.items(wire.GroupConsumerGroupMembers, t.CreatedOp, "member", mb)...)
		}
	}
	return items
}

// items is the one item of group g, or none when the request skips g.
func (p *pager) items(g wire.ChangeGroup, op uint64, kind string, b changeBody) []wire.ChangeRecord {
	if !p.q.Selects(g) {
		return nil
	}
	body, _ := json.Marshal(b)
	return []wire.ChangeRecord{{Op: op, Group: g, Kind: kind, Body: body}}
}
