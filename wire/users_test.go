package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// covers TRAN-1
func TestUserIdentifierVector(t *testing.T) {
	body := framingVector(t, "28-get-user-request-body-id-1.hex")
	id, code := DecodeUserIdentifier(body)
	if code != OK || id != NumericID(1) {
		t.Fatalf("%+v %v", id, code)
	}
	for _, bad := range [][]byte{nil, {1, 3, 1, 0, 0}, {2, 0}, {3, 4, 1, 0, 0, 0}} {
		if _, code := DecodeUserIdentifier(bad); code != InvalidCommand {
			t.Errorf("%x: %v", bad, code)
		}
	}
}

func globalOnly(g GlobalPermissions) *Permissions { return &Permissions{Global: g} }

// covers TRAN-1
func TestCreateUserVectors(t *testing.T) {
	tests := []struct {
		file string
		want CreateUserRequest
	}{
		{"29-create-user-body-no-permissions.hex", CreateUserRequest{Username: "u", Password: "p", Status: UserStatusActive}},
		{"30-create-user-body-status-0.hex", CreateUserRequest{Username: "u", Password: "p", Status: 0}},
		{"31-create-user-body-with-permissions.hex", CreateUserRequest{Username: "user", Password: "pass",
			Status: UserStatusInactive, Permissions: globalOnly(GlobalPermissions{ManageServers: true})}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body := framingVector(t, tt.file)
			got, code := DecodeCreateUser(body)
			if code != OK {
				t.Fatal(code)
			}
			if len(got.Options) != 0 {
				t.Fatalf("options %x", got.Options)
			}
			got.Options = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
			var w Writer
			got.Encode(&w)
			if !bytes.Equal(w.Buf, body) {
				t.Fatalf("re-encoded\n%x\n%x", w.Buf, body)
			}
		})
	}
}

// covers TRAN-1
func TestCreateUserOptionsAndFlags(t *testing.T) {
	// Options run to the end of the body and are kept raw.
	opts := framingVector(t, "24-options-block-golden.hex")
	body := append(bytes.Clone(framingVector(t, "29-create-user-body-no-permissions.hex")), opts...)
	got, code := DecodeCreateUser(body)
	if code != OK || !bytes.Equal(got.Options, opts) {
		t.Fatalf("%+v %v", got, code)
	}
	// has_permissions other than 1 means none (and then the rest is options).
	got, code = DecodeCreateUser([]byte{1, 'u', 1, 'p', 1, 7, 9})
	if code != OK || got.Permissions != nil || !bytes.Equal(got.Options, []byte{9}) {
		t.Fatalf("%+v %v", got, code)
	}
	bad := [][]byte{
		nil,
		{0, 1, 'p', 1, 0},      // empty username
		{1, 'u', 5, 'p', 1, 0}, // truncated password
		{1, 'u', 1, 'p', 1},    // missing has_permissions
		{1, 'u', 1, 'p', 1, 1}, // missing perm_len
		{1, 'u', 1, 'p', 1, 1, 12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, // perm_len > block
		{1, 'u', 1, 'p', 1, 1, 10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},    // perm_len < block
		{1, 'u', 1, 'p', 1, 1, 0xff, 0xff, 0xff, 0xff, 0},                       // huge perm_len
	}
	for _, b := range bad {
		if _, code := DecodeCreateUser(b); code != InvalidCommand {
			t.Errorf("%x: %v", b, code)
		}
	}
}

// covers TRAN-1
func TestUpdateUserVector(t *testing.T) {
	body := framingVector(t, "32-update-user-body.hex")
	got, code := DecodeUpdateUser(body)
	want := UpdateUserRequest{UserID: NumericID(7), HasUsername: true, Username: "user", HasStatus: true,
		Status: UserStatusActive, Options: []byte{}}
	if code != OK || !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v %v", got, code)
	}
	var w Writer
	got.Encode(&w)
	if !bytes.Equal(w.Buf, body) {
		t.Fatalf("re-encoded\n%x\n%x", w.Buf, body)
	}
	none, code := DecodeUpdateUser([]byte{1, 4, 7, 0, 0, 0, 0, 2})
	if code != OK || none.HasUsername || none.HasStatus {
		t.Fatalf("%+v %v", none, code)
	}
	for _, b := range [][]byte{{1, 4, 7, 0, 0, 0}, {1, 4, 7, 0, 0, 0, 1, 0, 0}, {1, 4, 7, 0, 0, 0, 0, 1}} {
		if _, code := DecodeUpdateUser(b); code != InvalidCommand {
			t.Errorf("%x: %v", b, code)
		}
	}
}

// covers TRAN-1
func TestUpdatePermissionsVectors(t *testing.T) {
	tests := []struct {
		file string
		want UpdatePermissionsRequest
	}{
		{"33-update-permissions-body-none.hex", UpdatePermissionsRequest{UserID: NumericID(42)}},
		{"34-update-permissions-body-global.hex", UpdatePermissionsRequest{UserID: NumericID(7),
			Permissions: globalOnly(GlobalPermissions{ManageServers: true, ReadUsers: true})}},
	}
	for _, tt := range tests {
		body := framingVector(t, tt.file)
		got, code := DecodeUpdatePermissions(body)
		if code != OK || !reflect.DeepEqual(got, tt.want) {
			t.Fatalf("%s: %+v %v", tt.file, got, code)
		}
		var w Writer
		got.Encode(&w)
		if !bytes.Equal(w.Buf, body) {
			t.Fatalf("%s: re-encoded\n%x\n%x", tt.file, w.Buf, body)
		}
	}
	if _, code := DecodeUpdatePermissions([]byte{1, 4, 7, 0, 0, 0}); code != InvalidCommand {
		t.Fatal("missing flag must fail: the snapshot's apply-time failure is a status 3 here")
	}
}

// covers TRAN-1
func TestChangePassword(t *testing.T) {
	c := ChangePasswordRequest{UserID: NamedID("bob"), CurrentPassword: "old-pass", NewPassword: ""}
	var w Writer
	c.Encode(&w)
	got, code := DecodeChangePassword(w.Buf)
	if code != OK || got != c {
		t.Fatalf("%+v %v", got, code)
	}
	if _, code := DecodeChangePassword(w.Buf[:len(w.Buf)-1]); code != InvalidCommand {
		t.Fatal("truncated body accepted")
	}
}

// covers TRAN-1
func TestUserDetailsRoundTrip(t *testing.T) {
	perm := &Permissions{Global: GlobalPermissions{ReadUsers: true},
		Streams: map[uint32]StreamPermissions{3: {ReadStream: true,
			Topics: map[uint32]TopicPermissions{7: {ReadTopic: true}}}}}
	opts := framingVector(t, "24-options-block-golden.hex")
	for _, d := range []UserDetails{
		{UserInfo: UserInfo{ID: 0, CreatedAt: 1, Status: UserStatusActive, Username: "iggy", Options: []byte{}}},
		{UserInfo: UserInfo{ID: 9, CreatedAt: 2, Status: 0, Username: "u", Options: opts}, Permissions: perm},
	} {
		var w Writer
		d.Encode(&w)
		got, code := DecodeUserDetails(w.Buf)
		if code != OK || !reflect.DeepEqual(got, d) {
			t.Fatalf("%+v %v\nwant %+v", got, code, d)
		}
	}
	// No permissions is four zero bytes after the record.
	var w Writer
	UserDetails{UserInfo: UserInfo{ID: 1, Status: 1, Username: "ab"}}.Encode(&w)
	if !bytes.Equal(w.Buf[len(w.Buf)-8:], make([]byte, 8)) || len(w.Buf) != 4+8+1+1+2+4+4 {
		t.Fatalf("%x", w.Buf)
	}
	w.Buf[len(w.Buf)-4] = 2
	if _, code := DecodeUserDetails(w.Buf); code != InvalidCommand {
		t.Fatal("flag 2 accepted")
	}
}

// covers TRAN-1
func TestUsersList(t *testing.T) {
	users := []UserInfo{{ID: 0, Status: 1, Username: "iggy", Options: []byte{}},
		{ID: 1, CreatedAt: 5, Status: 2, Username: "bob", Options: []byte{}}}
	var w Writer
	EncodeUsers(&w, users)
	got, code := DecodeUsers(w.Buf)
	if code != OK || !reflect.DeepEqual(got, users) {
		t.Fatalf("%+v %v", got, code)
	}
	if _, code := DecodeUsers(w.Buf[:len(w.Buf)-1]); code != InvalidCommand {
		t.Fatal("partial record accepted")
	}
	if got, code := DecodeUsers(nil); code != OK || len(got) != 0 {
		t.Fatal("empty list")
	}
}

// covers TRAN-1
func FuzzDecodeCreateUser(f *testing.F) {
	addFramingSeeds(f, "29-create-user-body-no-permissions.hex", "30-create-user-body-status-0.hex",
		"31-create-user-body-with-permissions.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeCreateUser, func(w *Writer, v CreateUserRequest) { v.Encode(w) }, b)
	})
}

// covers TRAN-1
func FuzzDecodeUpdateUser(f *testing.F) {
	addFramingSeeds(f, "32-update-user-body.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeUpdateUser, func(w *Writer, v UpdateUserRequest) { v.Encode(w) }, b)
	})
}

// covers TRAN-1
func FuzzDecodeUpdatePermissions(f *testing.F) {
	addFramingSeeds(f, "33-update-permissions-body-none.hex", "34-update-permissions-body-global.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeUpdatePermissions, func(w *Writer, v UpdatePermissionsRequest) { v.Encode(w) }, b)
	})
}

// covers TRAN-1
func FuzzDecodeChangePassword(f *testing.F) {
	addFramingSeeds(f, "28-get-user-request-body-id-1.hex")
	f.Add([]byte{1, 4, 7, 0, 0, 0, 3, 'o', 'l', 'd', 3, 'n', 'e', 'w'})
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeChangePassword, func(w *Writer, v ChangePasswordRequest) { v.Encode(w) }, b)
	})
}

// covers TRAN-1
func FuzzDecodeUserIdentifier(f *testing.F) {
	addFramingSeeds(f, "28-get-user-request-body-id-1.hex", "22-identifier-string-hello.hex", "23-identifier-numeric-123.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeUserIdentifier, func(w *Writer, v Identifier) { w.Identifier(v) }, b)
	})
}

// covers TRAN-1
func FuzzDecodeUserDetails(f *testing.F) {
	var w Writer
	UserDetails{UserInfo: UserInfo{ID: 3, Status: 1, Username: "bob"},
		Permissions: globalOnly(GlobalPermissions{ReadUsers: true})}.Encode(&w)
	f.Add(w.Buf)
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeUserDetails, func(w *Writer, v UserDetails) { v.Encode(w) }, b)
		framingRoundTrip(t, DecodeUsers, EncodeUsers, b)
	})
}
