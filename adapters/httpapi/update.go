package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/iggygo/iggy/wire"
)

// resetMember is the one member of a PUT body that is not an option key.
const resetMember = "reset"

// update sends UpdateResource (16) with the PUT body's set and reset lists.
func (s *Server) update(c caller, w http.ResponseWriter, r *http.Request, q wire.UpdateResourceRequest) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	cat, _ := wire.CatalogFor(q.Scope)
	if q.Set, q.Reset, e = updateBody(cat, o); e != nil {
		return e
	}
	return s.command(c, w, metaWrite, wire.CmdUpdateResource, encode(q.Encode))
}

// updateBody reads the flat PUT body of a stream, topic or user (RES-19..23)
// into the set and reset lists of UpdateResource (RES-5): every member other
// than reset is a key of the scope, identity keys included; a value sets it,
// null or absence leaves it; reset names keys to return to their defaults.
// A nested member (object or array) is InvalidCommand naming it. Whether a
// key exists, may change or may reset is the node's decision.
func updateBody(cat *wire.Catalog, o object) (wire.Options, []string, *apiError) {
	var set wire.Options
	for _, k := range o.sortedKeys() {
		if k == resetMember {
			continue
		}
		opt, ok, e := optionValue(cat, k, o[k])
		if e != nil {
			return nil, nil, e
		}
		if ok {
			set = append(set, opt)
		}
	}
	if code := set.Check(); code != wire.OK {
		return nil, nil, fromCode(code, "")
	}
	reset, e := resetList(o)
	if e != nil {
		return nil, nil, e
	}
	return set, reset, nil
}

// resetList reads the optional reset array of key names.
func resetList(o object) ([]string, *apiError) {
	if !o.present(resetMember) {
		return nil, nil
	}
	var keys []string
	if err := json.Unmarshal(o[resetMember], &keys); err != nil {
		return nil, invalidCommand(resetMember)
	}
	if len(keys) > wire.ResetKeysMax {
		return nil, invalidCommand(resetMember)
	}
	for i, k := range keys {
		if !validName(k) {
			return nil, invalidCommand(resetMember)
		}
		for _, prev := range keys[:i] {
			if prev == k {
				return nil, invalidCommand(resetMember)
			}
		}
	}
	return keys, nil
}
