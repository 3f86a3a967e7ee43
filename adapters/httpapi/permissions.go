package httpapi

import (
	"encoding/json"

	"github.com/iggygo/iggy/wire"
)

// The permissions JSON of http.md 4.2 is wire.Permissions itself: its tags
// are the REST names, and encoding/json writes its numeric map keys as the
// decimal strings the API uses (and refuses any other key when reading).

// permissionsMember reads an optional permissions member: absent or null is
// none. A malformed object or a non-numeric map key is a plain 422.
func permissionsMember(o object, member string) (*wire.Permissions, *apiError) {
	if !o.present(member) {
		return nil, nil
	}
	var p *wire.Permissions
	if err := json.Unmarshal(o[member], &p); err != nil {
		return nil, shapeError(member, "expected a permissions object whose stream and topic keys are numeric ids")
	}
	return p, nil
}
