package wire

// StampRequest fills a request header for op by the SDK's rules
// (protocol-framing.md 4.5) and returns it with the client's next request
// counter: Register sends request and session 0; NonReplicated and partition
// ops send the current counter without consuming it; Logout and metadata ops
// consume it. Callers that refuse ops locally (no session) check first.
func StampRequest(client U128, op Operation, code Command, counter, session uint64) (RequestHeader, uint64) {
	h := RequestHeader{Client: client, Operation: op}
	switch {
	case op == OpRegister:
		// request and session stay 0 (1.4).
	case op == OpNonReplicated:
		h.Request, h.Session, h.NRCode = counter, session, code
	case op == OpLogout || op.Metadata():
		h.Request, h.Session = counter, session
		counter++
	default:
		h.Request, h.Session = counter, session
	}
	return h, counter
}
