package wire

// Personal access token payloads, protocol-framing.md 8.8-8.10.

// PAT expiry values of the CreatePersonalAccessToken request.
const (
	PATExpiryServerDefault uint64 = 0          // the server's default lifetime
	PATExpiryNever         uint64 = ^uint64(0) // never expires
	PATExpiryAtNever       uint64 = 0          // expiry_at of a token that never expires
	patInfoSizeMin                = 1 + 1 + 8  // 1-byte name and expiry_at
)

// CreatePATRequest is the CreatePersonalAccessToken (42) body.
type CreatePATRequest struct {
	Name   string // WireName
	Expiry uint64 // µs lifetime from commit time; see PATExpiry*
}

// DecodeCreatePAT decodes the body; a failure is header status 3.
func DecodeCreatePAT(body []byte) (CreatePATRequest, Code) {
	r := NewReader(body)
	c := CreatePATRequest{Name: r.Name(), Expiry: r.U64()}
	if r.Err() != OK {
		return CreatePATRequest{}, InvalidCommand
	}
	return c, OK
}

// Encode writes the body with a plain u64 expiry (the snapshot Go SDK's
// shifted u32 is its own bug, 10 item 1; the server needs no workaround).
func (c CreatePATRequest) Encode(w *Writer) {
	writeWireName(w, c.Name)
	w.U64(c.Expiry)
}

// CreatePATReply is the result-framed payload of a successful create: the
// raw token, shown once.
type CreatePATReply struct{ Token string }

// Encode writes the token as a WireName.
func (c CreatePATReply) Encode(w *Writer) { writeWireName(w, c.Token) }

// DecodeCreatePATReply reads the payload after the result count.
func DecodeCreatePATReply(payload []byte) (CreatePATReply, Code) {
	r := NewReader(payload)
	c := CreatePATReply{Token: r.Name()}
	if r.Err() != OK {
		return CreatePATReply{}, InvalidCommand
	}
	return c, OK
}

// DecodeDeletePAT reads the DeletePersonalAccessToken (43) body: the token
// name as a WireName.
func DecodeDeletePAT(body []byte) (string, Code) {
	r := NewReader(body)
	name := r.Name()
	if r.Err() != OK {
		return "", InvalidCommand
	}
	return name, OK
}

// EncodeDeletePAT writes the DeletePersonalAccessToken body.
func EncodeDeletePAT(w *Writer, name string) { writeWireName(w, name) }

// PATInfo is one record of the GetPersonalAccessTokens (41) reply.
type PATInfo struct {
	Name     string
	ExpiryAt uint64 // µs since the epoch; PATExpiryAtNever for none
}

// EncodePATs writes the raw reply: records with no count. An empty body
// means the caller has no tokens.
func EncodePATs(w *Writer, tokens []PATInfo) {
	for _, t := range tokens {
		writeWireName(w, t.Name)
		w.U64(t.ExpiryAt)
	}
}

// DecodePATs reads the reply to its end; the loop is bounded because every
// record consumes at least patInfoSizeMin bytes.
func DecodePATs(body []byte) ([]PATInfo, Code) {
	r := NewReader(body)
	tokens := make([]PATInfo, 0, len(body)/patInfoSizeMin)
	for r.Len() > 0 && r.Err() == OK {
		tokens = append(tokens, PATInfo{Name: r.Name(), ExpiryAt: r.U64()})
	}
	if r.Err() != OK {
		return nil, InvalidCommand
	}
	return tokens, OK
}
