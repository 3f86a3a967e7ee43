package wire

import "testing"

// The SDK's request numbering (protocol-framing.md 4.5): only Logout and
// metadata ops consume the counter; Register sends request and session 0.
func TestStampRequest(t *testing.T) {
	client := U128{Lo: 7}
	cases := []struct {
		op          Operation
		code        Command
		wantRequest uint64
		wantSession uint64
		wantNR      Command
		wantNext    uint64
	}{
		{OpRegister, CmdLoginRegister, 0, 0, 0, 5},
		{OpNonReplicated, CmdPing, 5, 9, CmdPing, 5},
		{OpLogout, CmdLogoutUser, 5, 9, 0, 6},
		{OpCreateStream, CmdCreateStream, 5, 9, 0, 6},
		{OpSendMessages, CmdSendMessages, 5, 9, 0, 5},
	}
	for _, c := range cases {
		h, next := StampRequest(client, c.op, c.code, 5, 9)
		if h.Client != client || h.Operation != c.op || h.Request != c.wantRequest ||
			h.Session != c.wantSession || h.NRCode != c.wantNR || next != c.wantNext {
			t.Errorf("op %d: got %+v next %d", c.op, h, next)
		}
	}
}
