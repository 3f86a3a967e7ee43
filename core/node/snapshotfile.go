package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// getSnapshotFile serves GetSnapshotFile (11): the archive holds raw logs
// and host diagnostics, so it needs manage_servers (read_servers alone is
// refused). The adapter builds it; the reply is the raw ZIP.
func (n *Node) getSnapshotFile(c *conn, h wire.RequestHeader, body []byte) {
	if !n.allowed(c, h, metadata.ActionManageServers) {
		return
	}
	q, code := wire.DecodeGetSnapshotFile(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	n.answerJob(c, h, compute.Request{Kind: compute.KindSnapshotArchive, Compression: q.Compression, Types: q.Types})
}

// answerJob starts job and answers the request with its result, raw.
func (n *Node) answerJob(c *conn, h wire.RequestHeader, job compute.Request) {
	started := n.startJob(job, func(res compute.Result) {
		if _, open := n.conns[c.id]; !open {
			return
		}
		if res.Code != 0 {
			n.deny(c, h, wire.Code(res.Code))
			return
		}
		n.raw(c, h, res.Data)
	})
	if !started {
		n.deny(c, h, wire.TransientNotAccepted)
	}
}

// dumpFlightRecorder serves DumpFlightRecorder (19): the adapter writes a
// flight recorder dump under its dump path and the reply is the file's
// name, raw; 5 FeatureUnavailable when the recorder is off. The dump holds
// every input, so it needs manage_servers, as the diagnostic archive does.
func (n *Node) dumpFlightRecorder(c *conn, h wire.RequestHeader, body []byte) {
	if !n.allowed(c, h, metadata.ActionManageServers) {
		return
	}
	if len(body) != 0 {
		n.deny(c, h, wire.InvalidCommand)
		return
	}
	n.answerJob(c, h, compute.Request{Kind: compute.KindFlightDump})
}
