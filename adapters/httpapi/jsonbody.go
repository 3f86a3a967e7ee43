package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/iggygo/iggy/wire"
)

// object is a decoded JSON object body: its members, still raw.
type object map[string]json.RawMessage

// readObject reads a JSON object body the way the reference framework does
// (http.md 1): a content type other than application/json is a plain 415,
// a body over the cap 413, a syntax error a plain 400 and a body that is not
// an object a plain 422.
func readObject(r *http.Request) (object, *apiError) {
	body, e := readJSONBody(r)
	if e != nil {
		return nil, e
	}
	return parseObject(body)
}

// readJSONBody buffers a JSON request body (a relay sends it on as received).
func readJSONBody(r *http.Request) ([]byte, *apiError) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, plainError(http.StatusUnsupportedMediaType,
			"Expected request with `Content-Type: application/json`")
	}
	body, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, plainError(http.StatusRequestEntityTooLarge, "Failed to buffer the request body: length limit exceeded")
	}
	if err != nil {
		return nil, plainError(http.StatusBadRequest, "Failed to read the request body")
	}
	return body, nil
}

// parseObject decodes body as one JSON object and nothing after it.
func parseObject(body []byte) (object, *apiError) {
	if !json.Valid(body) {
		return nil, plainError(http.StatusBadRequest, "Failed to parse the request body as JSON")
	}
	var obj object
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, plainError(http.StatusUnprocessableEntity, "Failed to deserialize the JSON body: expected an object")
	}
	return obj, nil
}

// pathAndBody reads a route's path values with path, then its JSON object body.
func pathAndBody[P any](r *http.Request, path func(*http.Request) (P, *apiError)) (P, object, *apiError) {
	p, e := path(r)
	if e != nil {
		return p, nil, e
	}
	o, e := readObject(r)
	return p, o, e
}

// shapeError is the plain 422 of a member of the wrong type or a missing one.
func shapeError(member, want string) *apiError {
	return plainError(http.StatusUnprocessableEntity,
		fmt.Sprintf("Failed to deserialize the JSON body into the target type: %s: %s", member, want))
}

// onlyMembers refuses any member outside allowed with InvalidCommand naming
// it; the lowest name first, so the answer is deterministic (RES-18, RES-22).
func (o object) onlyMembers(allowed ...string) *apiError {
	for _, k := range o.sortedKeys() {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			return invalidCommand(k)
		}
	}
	return nil
}

func (o object) sortedKeys() []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// present reports whether member is there and not null.
func (o object) present(member string) bool {
	raw, ok := o[member]
	return ok && !isNull(raw)
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// str reads a string member; absent or null gives "" and false.
func (o object) str(member string, required bool) (string, bool, *apiError) {
	if !o.present(member) {
		if required {
			return "", false, shapeError(member, "missing field")
		}
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(o[member], &s); err != nil {
		return "", false, shapeError(member, "expected a string")
	}
	return s, true, nil
}

// name reads the required "name" member of a create body; one that does not
// fit a WireName is invalid, the scope's own code naming the member.
func (o object) name(invalid wire.Code) (string, *apiError) {
	name, _, e := o.str("name", true)
	if e != nil {
		return "", e
	}
	if !validName(name) {
		return "", fromCode(invalid, "name")
	}
	return name, nil
}

// uint reads an unsigned integer member of at most max.
func (o object) uint(member string, max uint64, required bool) (uint64, bool, *apiError) {
	if !o.present(member) {
		if required {
			return 0, false, shapeError(member, "missing field")
		}
		return 0, false, nil
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(o[member])), 10, 64)
	if err != nil || v > max {
		return 0, false, shapeError(member, fmt.Sprintf("expected an integer from 0 to %d", max))
	}
	return v, true, nil
}

// identifier reads a member that is a numeric id or a name (a JSON number
// or a string).
func (o object) identifier(member string, def wire.Identifier) (wire.Identifier, *apiError) {
	if !o.present(member) {
		return def, nil
	}
	raw := bytes.TrimSpace(o[member])
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return wire.Identifier{}, shapeError(member, "expected a string")
		}
		return parseIdentifier(s, member)
	}
	v, err := strconv.ParseUint(string(raw), 10, 32)
	if err != nil {
		return wire.Identifier{}, shapeError(member, "expected an id or a name")
	}
	return wire.NumericID(uint32(v)), nil
}

// parseIdentifier reads a path or body identifier: a u32 when it parses as
// one, else a name of 1..255 bytes (http.md conventions).
func parseIdentifier(s, field string) (wire.Identifier, *apiError) {
	if v, err := strconv.ParseUint(s, 10, 32); err == nil {
		return wire.NumericID(uint32(v)), nil
	}
	if len(s) < 1 || len(s) > nameBytesMax || !utf8.ValidString(s) {
		return wire.Identifier{}, fromCode(wire.InvalidIdentifier, field)
	}
	return wire.NamedID(s), nil
}

// nameBytesMax is the longest WireName the wire carries.
const nameBytesMax = 255

// validName reports whether s fits a WireName and prints as itself (no
// control or bidi formatting character, wire.NamePrintable).
func validName(s string) bool {
	return len(s) >= 1 && len(s) <= nameBytesMax && utf8.ValidString(s) && wire.NamePrintable(s)
}

// base64Member decodes a base64 string member (standard alphabet, padded).
func base64Member(raw json.RawMessage, member string) ([]byte, *apiError) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, shapeError(member, "expected a base64 string")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, shapeError(member, "invalid base64")
	}
	return b, nil
}

// queryUint reads an optional unsigned query parameter; a bad one is a plain 400.
func queryUint(r *http.Request, name string, def, max uint64) (uint64, *apiError) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > max {
		return 0, plainError(http.StatusBadRequest, fmt.Sprintf("Failed to deserialize query string: %s", name))
	}
	return v, nil
}

// pathU32 reads a numeric path segment; anything else is a plain 400.
func pathU32(r *http.Request, name string) (uint32, *apiError) {
	v, err := strconv.ParseUint(r.PathValue(name), 10, 32)
	if err != nil || v > math.MaxUint32 {
		return 0, plainError(http.StatusBadRequest, fmt.Sprintf("Invalid URL: cannot parse %s", name))
	}
	return uint32(v), nil
}

// pathID reads an identifier path segment.
func pathID(r *http.Request, name string) (wire.Identifier, *apiError) {
	return parseIdentifier(r.PathValue(name), name)
}
