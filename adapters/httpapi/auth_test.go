package httpapi

import (
	"net/http"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// The answers of a failed login Register (http.md 4.1). A password login
// of an inactive user arrives as eviction 9, like a wrong password
// (protocol-framing.md 4.7: the node does not tell which users exist), so
// it is 400/42 over HTTP as over the binary protocol; 47 comes only from
// eviction 11, a token login of an inactive user.
// covers TRAN-4
func TestLoginFailureAnswers(t *testing.T) {
	for _, tc := range []struct {
		reason wire.EvictionReason
		status int
		id     wire.Code
	}{
		{wire.EvictInvalidCredentials, http.StatusBadRequest, wire.InvalidCredentials},
		{wire.EvictUserInactive, http.StatusBadRequest, wire.UserInactive},
		{wire.EvictInvalidToken, http.StatusUnauthorized, wire.InvalidPersonalAccessToken},
		{wire.EvictSessionError, http.StatusUnauthorized, wire.Unauthenticated},
	} {
		e := loginFailure(&evictedError{e: wire.Eviction{Reason: tc.reason}})
		if e.status != tc.status || e.id != uint32(tc.id) {
			t.Errorf("eviction %d: %d/%d, want %d/%d", tc.reason, e.status, e.id, tc.status, tc.id)
		}
	}
}
