package extauth

import (
	"strings"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// Only a 2xx JSON allow naming a valid username signs in; everything else
// the service may answer is a deny (AUTH-17, AUTH-18).
// covers AUTH-17, AUTH-18
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{200, `{"decision":"allow","username":"alice"}`, "alice"},
		{200, `{"decision":"allow","username":"alice","ttl":5}`, "alice"},
		{204, `{"decision":"allow","username":"bob"}`, "bob"},
		{200, `{"decision":"deny","username":"alice"}`, ""},
		{200, `{"decision":"allow"}`, ""},
		{200, `{"decision":"allow","username":"` + strings.Repeat("a", 300) + `"}`, ""},
		{200, `{"decision":"ALLOW","username":"alice"}`, ""},
		{200, `not json`, ""},
		{403, `{"decision":"allow","username":"alice"}`, ""},
		{200, `{"decision":"allow","username":"alice"}` + strings.Repeat(" ", answerBytesMax), ""},
	} {
		got, err := decide(c.status, []byte(c.body))
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("decide(%d, %.60q) = %q, %v; want %q", c.status, c.body, got, err, c.want)
		}
	}
}

// FuzzDecide: no answer panics the decoder, and an allow always names a
// username the wire can carry.
func FuzzDecide(f *testing.F) {
	f.Add(200, []byte(`{"decision":"allow","username":"alice"}`))
	f.Add(200, []byte(`{"decision":"deny"}`))
	f.Add(500, []byte(`{}`))
	f.Add(200, []byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, status int, raw []byte) {
		name, err := decide(status, raw)
		if err == nil && !wire.UsernameLengthValid(name) {
			t.Fatalf("allowed %q", name)
		}
	})
}
