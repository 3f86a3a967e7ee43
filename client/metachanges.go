package client

import "github.com/iggygo/iggy/wire"

// GetMetadataChanges reads one page of the metadata change log (command
// 17): from earliest, latest or after q.Token's mc1_ cursor.
func (c *Client) GetMetadataChanges(q wire.ChangesRequest) (wire.ChangesReply, error) {
	w := &wire.Writer{}
	wire.EncodeChangesRequest(w, q)
	payload, err := c.call(wire.CmdGetMetadataChanges, w.Buf)
	if err != nil {
		return wire.ChangesReply{}, err
	}
	p, code := wire.DecodeChangesReply(payload)
	if code != wire.OK {
		return wire.ChangesReply{}, decodeFailed("GetMetadataChanges", code)
	}
	return p, nil
}
