package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/wire"
)

// changeJSON is one record of GET /metadata/changes (MCL-6).
type changeJSON struct {
	Seq        uint64          `json:"seq"`
	Op         uint64          `json:"op"`
	TimeMicros uint64          `json:"timestamp"`
	Group      string          `json:"group"`
	Kind       string          `json:"kind"`
	UserID     *uint32         `json:"user_id"`
	Body       json.RawMessage `json:"body"`
}

type changesJSON struct {
	Status    string       `json:"status"`
	HasMore   bool         `json:"has_more"`
	Cursor    *string      `json:"cursor"`
	PageToken *string      `json:"page_token,omitempty"`
	Records   []changeJSON `json:"records"`
}

// getChanges serves GET /metadata/changes?start=earliest|latest|current
// &cursor=mc1_..&page_token=cs1_..&groups=a,b&from=&to=&limit= as command 17.
func (s *Server) getChanges(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	q, e := changesQuery(r)
	if e != nil {
		return e
	}
	wr := &wire.Writer{}
	wire.EncodeChangesRequest(wr, q)
	p, e := fetch(s, c, reading, wire.CmdGetMetadataChanges, wr.Buf, wire.DecodeChangesReply)
	if e != nil {
		return e
	}
	return okJSON(w, changesView(p))
}

// changesQuery builds the request from the query string; the node checks
// the rules (limit, range with latest, token shape) and answers 3.
func changesQuery(r *http.Request) (wire.ChangesRequest, *apiError) {
	v := r.URL.Query()
	q := wire.ChangesRequest{Limit: 100}
	switch start := v.Get("start"); {
	case v.Get("cursor") != "":
		q.Start, q.Token = wire.ChangeStartCursor, v.Get("cursor")
	case start == "" || start == "earliest":
		q.Start = wire.ChangeStartEarliest
	case start == "latest":
		q.Start = wire.ChangeStartLatest
	case start == "current":
		q.Start, q.Token = wire.ChangeStartCurrent, v.Get("page_token")
	default:
		return q, invalidCommand("start")
	}
	if g := v.Get("groups"); g != "" {
		for _, name := range strings.Split(g, ",") {
			grp, ok := wire.ChangeGroupByName(name)
			if !ok {
				return q, invalidCommand("groups")
			}
			q.Groups |= 1 << grp
		}
	}
	for _, f := range []struct {
		name string
		dst  *uint64
	}{{"from", &q.FromMicros}, {"to", &q.ToMicros}} {
		if s := v.Get(f.name); s != "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return q, invalidCommand(f.name)
			}
			*f.dst = n
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return q, invalidCommand("limit")
		}
		q.Limit = uint32(n)
	}
	return q, nil
}

func changesView(p wire.ChangesReply) changesJSON {
	out := changesJSON{Status: wire.ChangeStatusNames[p.Status], HasMore: p.HasMore, Records: []changeJSON{}}
	if p.Cursor != "" {
		out.Cursor = &p.Cursor
	}
	if p.PageToken != "" {
		out.PageToken = &p.PageToken
	}
	for _, rec := range p.Records {
		cj := changeJSON{Seq: rec.Seq, Op: rec.Op, TimeMicros: rec.TimeMicros, Group: wire.ChangeGroupNames[rec.Group], Kind: rec.Kind, Body: rec.Body}
		if rec.HasUser {
			id := rec.UserID
			cj.UserID = &id
		}
		out.Records = append(out.Records, cj)
	}
	return out
}
