package httpapi

import (
	"net/http"

	"github.com/iggygo/iggy/wire"
)

// patJSON is one token of GET /personal-access-tokens.
type patJSON struct {
	Name     string  `json:"name"`
	ExpiryAt *uint64 `json:"expiry_at"`
}

// patView shows a token's expiry, or null when it never expires.
func patView(t wire.PATInfo) patJSON {
	j := patJSON{Name: t.Name}
	if t.ExpiryAt != wire.PATExpiryAtNever {
		at := t.ExpiryAt
		j.ExpiryAt = &at
	}
	return j
}

// GET /personal-access-tokens: the caller's own tokens.
func (s *Server) getTokens(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	return readList(s, c, w, wire.CmdGetPersonalAccessTokens, nil, wire.DecodePATs, patView)
}

// POST /personal-access-tokens with {"name", "expiry"?} (µs; 0 is the
// server default, u64::MAX never): {"token"}, shown once.
func (s *Server) createToken(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	name, e := o.name(wire.InvalidPersonalAccessTokenName)
	if e != nil {
		return e
	}
	expiry, _, e := o.uint("expiry", wire.PATExpiryNever, false)
	if e != nil {
		return e
	}
	req := wire.CreatePATRequest{Name: name, Expiry: expiry}
	reply, e := fetch(s, c, metaWrite, wire.CmdCreatePersonalAccessToken, encode(req.Encode), wire.DecodeCreatePATReply)
	if e != nil {
		return e
	}
	return okJSON(w, map[string]string{"token": reply.Token})
}

// DELETE /personal-access-tokens/{name}
func (s *Server) deleteToken(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	name := r.PathValue("name")
	if !validName(name) {
		return fromCode(wire.InvalidPersonalAccessTokenName, "name")
	}
	body := encode(func(w *wire.Writer) { wire.EncodeDeletePAT(w, name) })
	return s.command(c, w, metaWrite, wire.CmdDeletePersonalAccessToken, body)
}
