package wire

import "github.com/iggygo/iggy/internal/assert"

// User payloads, protocol-framing.md 8.1-8.7. Options TLV blocks are kept as
// raw bytes that alias the decoded body; their structure and keys are checked
// by the options codec (a structural failure is 3, any key 4041 in the snapshot).

// Length rules applied when a login or a user op is executed (not at decode).
const (
	UsernameLengthMin = 3
	UsernameLengthMax = 50
	PasswordLengthMin = 3
	PasswordLengthMax = 100
)

// UsernameLengthValid reports whether name has an acceptable length (else 43
// on create and update, and invalid credentials on login).
func UsernameLengthValid(name string) bool {
	return len(name) >= UsernameLengthMin && len(name) <= UsernameLengthMax
}

// UserStatus is a user's status byte. Values other than Active and Inactive
// are stored as Active but echoed back raw (8.3).
type UserStatus uint8

const (
	UserStatusActive   UserStatus = 1
	UserStatusInactive UserStatus = 2
)

// UserInfo is the user record of GetUsers, GetUser and CreateUser (8.1).
type UserInfo struct {
	ID        uint32
	CreatedAt uint64 // µs since the epoch
	Status    UserStatus
	Username  string
	Options   []byte // TLV block without its u32 length prefix
}

// userInfoSizeMin is a record with a 1-byte name and no options; it bounds
// how many records a body can hold.
const userInfoSizeMin = 4 + 8 + 1 + 1 + 1 + 4

// Encode writes the record with its options length prefix.
func (u UserInfo) Encode(w *Writer) {
	if uint64(len(u.Options)) > BodySizeMax {
		assert.Failf("user options %d bytes", len(u.Options))
	}
	w.U32(u.ID)
	w.U64(u.CreatedAt)
	w.U8(uint8(u.Status))
	writeWireName(w, u.Username)
	w.U32(uint32(len(u.Options)))
	w.Bytes(u.Options)
}

func readUserInfo(r *Reader) UserInfo {
	u := UserInfo{ID: r.U32(), CreatedAt: r.U64(), Status: UserStatus(r.U8()), Username: r.Name()}
	n := r.U32()
	if uint64(n) > uint64(r.Len()) {
		r.Fail(InvalidCommand)
		return UserInfo{}
	}
	u.Options = r.Bytes(int(n))
	return u
}

// UserDetails is a UserInfo followed by the permissions section (8.1).
type UserDetails struct {
	UserInfo
	Permissions *Permissions // nil: no permissions
}

// Encode writes the record: with no permissions the section is four zero
// bytes, else [1][perm_len u32][block].
func (d UserDetails) Encode(w *Writer) {
	d.UserInfo.Encode(w)
	if d.Permissions == nil {
		w.U32(0)
		return
	}
	writePermissionsPrefixed(w, *d.Permissions)
}

// DecodeUserDetails reads a GetUser or CreateUser payload. An empty GetUser
// body means "not found" and must be checked by the caller first.
func DecodeUserDetails(body []byte) (UserDetails, Code) {
	r := NewReader(body)
	d := UserDetails{UserInfo: readUserInfo(r)}
	switch r.U8() {
	case 0:
		r.Bytes(3)
	case 1:
		d.Permissions = readPermissionsLen(r)
	default:
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return UserDetails{}, InvalidCommand
	}
	return d, OK
}

// EncodeUsers writes a GetUsers body: records with no count prefix.
func EncodeUsers(w *Writer, users []UserInfo) {
	for _, u := range users {
		u.Encode(w)
	}
}

// DecodeUsers reads a GetUsers body to its end; a trailing partial record is 3.
// The loop is bounded because every record consumes at least userInfoSizeMin bytes.
func DecodeUsers(body []byte) ([]UserInfo, Code) {
	r := NewReader(body)
	users := make([]UserInfo, 0, len(body)/userInfoSizeMin)
	for r.Len() > 0 && r.Err() == OK {
		users = append(users, readUserInfo(r))
	}
	if r.Err() != OK {
		return nil, InvalidCommand
	}
	return users, OK
}

// DecodeUserIdentifier reads the body of GetUser (31) and DeleteUser (34).
func DecodeUserIdentifier(body []byte) (Identifier, Code) {
	r := NewReader(body)
	id := r.Identifier()
	if r.Err() != OK {
		return Identifier{}, InvalidCommand
	}
	return id, OK
}

// CreateUserRequest is the CreateUser (33) body (8.3).
type CreateUserRequest struct {
	Username    string
	Password    string // plaintext on the wire; never replicated
	Status      UserStatus
	Permissions *Permissions
	Options     []byte // TLV to the end of the body
}

// DecodeCreateUser decodes the body; a failure is header status 3.
func DecodeCreateUser(body []byte) (CreateUserRequest, Code) {
	r := NewReader(body)
	c := CreateUserRequest{Username: r.Name(), Password: r.Str8(), Status: UserStatus(r.U8())}
	c.Permissions = readOptionalPermissions(r)
	c.Options = r.Rest()
	if r.Err() != OK {
		return CreateUserRequest{}, InvalidCommand
	}
	return c, OK
}

// Encode writes the body as the Go SDK does, with the options at the end.
func (c CreateUserRequest) Encode(w *Writer) {
	writeWireName(w, c.Username)
	writeStr8(w, c.Password)
	w.U8(uint8(c.Status))
	writeOptionalPermissions(w, c.Permissions)
	w.Bytes(c.Options)
}

// UpdateUserRequest is the UpdateUser (35) body (8.5). The target release
// retires code 35 for UpdateResource (16); the layout is kept for operation 142.
type UpdateUserRequest struct {
	UserID      Identifier
	HasUsername bool
	Username    string
	HasStatus   bool
	Status      UserStatus
	Options     []byte // TLV to the end of the body
}

// DecodeUpdateUser decodes the body; a flag other than 1 means "unchanged".
func DecodeUpdateUser(body []byte) (UpdateUserRequest, Code) {
	r := NewReader(body)
	u := UpdateUserRequest{UserID: r.Identifier()}
	if u.HasUsername = r.U8() == 1; u.HasUsername {
		u.Username = r.Name()
	}
	if u.HasStatus = r.U8() == 1; u.HasStatus {
		u.Status = UserStatus(r.U8())
	}
	u.Options = r.Rest()
	if r.Err() != OK {
		return UpdateUserRequest{}, InvalidCommand
	}
	return u, OK
}

// Encode writes both flags, as the Go SDK always does.
func (u UpdateUserRequest) Encode(w *Writer) {
	w.Identifier(u.UserID)
	w.Bool(u.HasUsername)
	if u.HasUsername {
		writeWireName(w, u.Username)
	}
	w.Bool(u.HasStatus)
	if u.HasStatus {
		w.U8(uint8(u.Status))
	}
	w.Bytes(u.Options)
}

// UpdatePermissionsRequest is the UpdatePermissions (36) body (8.6). Nil
// Permissions clears every permission.
type UpdatePermissionsRequest struct {
	UserID      Identifier
	Permissions *Permissions
}

// DecodeUpdatePermissions decodes the body; the snapshot did not check it
// before consensus, a reimplementation denies a bad body with status 3.
func DecodeUpdatePermissions(body []byte) (UpdatePermissionsRequest, Code) {
	r := NewReader(body)
	u := UpdatePermissionsRequest{UserID: r.Identifier()}
	u.Permissions = readOptionalPermissions(r)
	if r.Err() != OK {
		return UpdatePermissionsRequest{}, InvalidCommand
	}
	return u, OK
}

// Encode writes the body.
func (u UpdatePermissionsRequest) Encode(w *Writer) {
	w.Identifier(u.UserID)
	writeOptionalPermissions(w, u.Permissions)
}

// ChangePasswordRequest is the ChangePassword (37) body (8.7).
type ChangePasswordRequest struct {
	UserID          Identifier
	CurrentPassword string
	NewPassword     string
}

// DecodeChangePassword decodes the body.
func DecodeChangePassword(body []byte) (ChangePasswordRequest, Code) {
	r := NewReader(body)
	c := ChangePasswordRequest{UserID: r.Identifier(), CurrentPassword: r.Str8(), NewPassword: r.Str8()}
	if r.Err() != OK {
		return ChangePasswordRequest{}, InvalidCommand
	}
	return c, OK
}

// Encode writes the body.
func (c ChangePasswordRequest) Encode(w *Writer) {
	w.Identifier(c.UserID)
	writeStr8(w, c.CurrentPassword)
	writeStr8(w, c.NewPassword)
}

// readOptionalPermissions reads has_permissions and, when it is 1, the
// perm_len and a block of exactly that size (6.3). Any other flag is none.
func readOptionalPermissions(r *Reader) *Permissions {
	if r.U8() != 1 {
		return nil
	}
	return readPermissionsLen(r)
}

// readPermissionsLen reads perm_len and a block of exactly that size.
func readPermissionsLen(r *Reader) *Permissions {
	size := r.U32()
	if r.Err() != OK {
		return nil
	}
	if uint64(size) > uint64(r.Len()) {
		r.Fail(InvalidCommand)
		return nil
	}
	p := r.Permissions(int(size))
	if r.Err() != OK {
		return nil
	}
	return &p
}

// writeOptionalPermissions writes [0], or [1][perm_len][block].
func writeOptionalPermissions(w *Writer, p *Permissions) {
	if p == nil {
		w.U8(0)
		return
	}
	writePermissionsPrefixed(w, *p)
}

// writePermissionsPrefixed writes [1][perm_len][block].
func writePermissionsPrefixed(w *Writer, p Permissions) {
	var block Writer
	block.Permissions(p)
	w.U8(1)
	w.U32(uint32(len(block.Buf)))
	w.Bytes(block.Buf)
}
