package node

import (
	"errors"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// The checkpoint image is the node's replicated state at one op: the metadata
// snapshot and the client table (sessions and their receipts). Layout:
//
//	magic [8] "IGGYIMG1", checkpoint op u64, metadata length u32, metadata,
//	clients count u32, then per client in ascending id order:
//	id lo u64, id hi u64, user u32, session u64, watermark u64, next u8,
//	and repliesCachedMax receipts {request u64, operation u8, op u64,
//	body length u32 (0xFFFFFFFF: empty slot), body};
//	then the committed client table limit u32 (0: none yet), which images
//	written before it was kept lack (read as 0).
//
// Its checksum is kept in the superblock that names it.
const imageMagic = "IGGYIMG1"

// emptyReceipt marks a receipt slot never filled.
const emptyReceipt = 0xFFFFFFFF

var errImage = errors.New("checkpoint image is malformed")

// encodeImage captures the state after op.
func (n *Node) encodeImage(op uint64) []byte {
	w := wire.Writer{}
	w.Bytes([]byte(imageMagic))
	w.U64(op)
	meta := n.meta.Snapshot()
	w.U32(uint32(len(meta)))
	w.Bytes(meta)
	ids := sortedClientIDs(n.clients)
	w.U32(uint32(len(ids)))
	for _, id := range ids {
		encodeClient(&w, id, n.clients[id])
	}
	w.U32(uint32(n.clientsLimit))
	return w.Buf
}

// image is a decoded checkpoint image.
type image struct {
	op           uint64
	meta         *metadata.State
	clients      map[wire.U128]*client
	clientsLimit int
}

// restore makes img the node's replicated state.
func (n *Node) restore(img image) {
	n.meta, n.clients, n.clientsLimit = img.meta, img.clients, img.clientsLimit
	n.sizeChangeLog()
}

func encodeClient(w *wire.Writer, id wire.U128, e *client) {
	w.U64(id.Lo)
	w.U64(id.Hi)
	w.U32(e.userID)
	w.U64(e.session)
	w.U64(e.watermark)
	w.U8(uint8(e.next))
	for _, r := range e.replies {
		w.U64(r.request)
		w.U8(uint8(r.operation))
		w.U64(r.op)
		if r.body == nil {
			w.U32(emptyReceipt)
			continue
		}
		w.U32(uint32(len(r.body)))
		w.Bytes(r.body)
	}
}

// decodeImage restores the metadata and client table from an image.
func decodeImage(b []byte) (image, error) {
	r := wire.NewReader(b)
	if string(r.Bytes(len(imageMagic))) != imageMagic {
		return image{}, errImage
	}
	img := image{op: r.U64()}
	meta, err := metadata.Restore(r.Bytes(int(r.U32())))
	if err != nil || r.Err() != wire.OK {
		return image{}, errors.Join(errImage, err)
	}
	img.meta = meta
	count := r.U32()
	if uint64(count) > uint64(r.Len()) || count > clientsMax {
		return image{}, errImage
	}
	img.clients = make(map[wire.U128]*client, count)
	for range count {
		id, e := decodeClient(r)
		img.clients[id] = e
	}
	if r.Err() == wire.OK && r.Len() > 0 {
		img.clientsLimit = int(r.U32())
	}
	if r.Err() != wire.OK || r.Len() != 0 || img.clientsLimit > clientsMax {
		return image{}, errImage
	}
	return img, nil
}

func decodeClient(r *wire.Reader) (wire.U128, *client) {
	id := wire.U128{Lo: r.U64(), Hi: r.U64()}
	e := &client{userID: r.U32(), session: r.U64(), watermark: r.U64(), next: int(r.U8()) % repliesCachedMax}
	for i := range e.replies {
		rc := receipt{request: r.U64(), operation: wire.Operation(r.U8()), op: r.U64()}
		if size := r.U32(); size != emptyReceipt {
			rc.body = append([]byte{}, r.Bytes(int(size))...)
		}
		e.replies[i] = rc
	}
	return id, e
}
