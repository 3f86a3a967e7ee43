package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// fakeLog is one partition's records, kept by a fake server handler.
type fakeLog struct {
	mu      sync.Mutex
	records [][]byte
	next    uint64
	corrupt bool // flip a payload byte in poll replies
}

func (l *fakeLog) handle(h wire.RequestHeader, body []byte) [][]byte {
	rh := wire.ReplyTo(h)
	switch {
	case h.Operation == wire.OpSendMessages:
		req, code := wire.DecodeSendMessagesRequest(body)
		if code != wire.OK {
			return [][]byte{wire.DenialFrame(rh, code)}
		}
		if _, code := batch.Validate(req.Batch); code != wire.OK {
			return [][]byte{wire.DenialFrame(rh, code)}
		}
		rec := bytes.Clone(req.Batch)
		l.mu.Lock()
		base := l.next
		batch.Stamp(rec, uint64(req.Partitioning.PartitionID), base, 1000+base)
		l.records = append(l.records, rec)
		l.next += uint64(req.MessagesCount)
		l.mu.Unlock()
		conf := wire.SendConfirmation{PartitionID: req.Partitioning.PartitionID, BaseOffset: base}
		return wire.RawFrame(rh, encode(func(w *wire.Writer) { wire.EncodeSendConfirmations(w, []wire.SendConfirmation{conf}) }))
	case h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdPollMessages:
		req, code := wire.DecodePollMessagesRequest(body)
		if code != wire.OK {
			return [][]byte{wire.DenialFrame(rh, code)}
		}
		return wire.RawFrame(rh, l.poll(req.Strategy.Value, req.Count)...)
	}
	return okHandler(h, body)
}

// poll slices the records from offset from, at most count messages.
func (l *fakeLog) poll(from uint64, count uint32) [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts [][]byte
	var n uint32
	for _, rec := range l.records {
		hdr, frames, got := batch.Slice(rec, from, count-n)
		if got == 0 {
			continue
		}
		frames = bytes.Clone(frames)
		if l.corrupt {
			frames[batch.FrameHeaderBytes] ^= 0xFF
		}
		parts = append(parts, hdr[:], frames)
		n += got
		if n == count {
			break
		}
	}
	prefix := wire.PollPrefix{CurrentOffset: l.next - 1, MessagesCount: n}
	return append([][]byte{prefix.Bytes()}, parts...)
}

func testMessages(n int) []Message {
	msgs := make([]Message, n)
	for i := range msgs {
		msgs[i] = Message{
			ID:      [16]byte{byte(i + 1), 0xAB},
			Payload: []byte(fmt.Sprintf("payload-%d", i)),
			Headers: map[string]HeaderValue{
				"index": {Kind: wire.KindUint32, Value: []byte{byte(i), 0, 0, 0}},
				"name":  {Kind: wire.KindString, Value: []byte("m" + fmt.Sprint(i))},
			},
			OriginTimestamp: uint64(5000 + i),
		}
	}
	return msgs
}

// Messages come back with their ids, payloads, headers and origin
// timestamps, including from a record sliced at its head; also with one
// reply buffer reused for every reply, growing when a reply is larger.
func TestSendAndPollRoundTrip(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reuse=%v", reuse), func(t *testing.T) { testSendAndPoll(t, reuse) })
	}
}

func testSendAndPoll(t *testing.T, reuse bool) {
	log := &fakeLog{}
	s := newFakeServer(t, log.handle)
	c, err := Dial(context.Background(), s.ln.Addr().String(), Options{RequestTimeout: 2 * time.Second, ReuseReplyBuffer: reuse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	stream, topic := wire.NumericID(0), wire.NumericID(0)
	part := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 2}
	sent := testMessages(10)
	for i := 0; i < len(sent); i += 5 {
		base, err := c.SendMessages(stream, topic, part, sent[i:i+5])
		if err != nil || base != uint64(i) {
			t.Fatalf("send %d: base %d err %v", i, base, err)
		}
	}
	p := uint32(2)
	for _, from := range []uint64{7, 0, 3, 7} {
		current, got, err := c.PollMessages(Consumer(1), stream, topic, &p, wire.PollOffset, from, 100, false)
		if err != nil || current != 9 || len(got) != len(sent)-int(from) {
			t.Fatalf("poll from %d: current %d, %d messages, err %v", from, current, len(got), err)
		}
		for i, m := range got {
			want := sent[int(from)+i]
			if m.Offset != from+uint64(i) || m.ID != want.ID || !bytes.Equal(m.Payload, want.Payload) ||
				m.OriginTimestamp != want.OriginTimestamp || m.Partition != 2 {
				t.Fatalf("poll from %d, message %d: %+v", from, i, m)
			}
			headers, err := m.HeaderMap()
			if err != nil || !bytes.Equal(headers["name"].Value, want.Headers["name"].Value) ||
				headers["index"].Kind != wire.KindUint32 {
				t.Fatalf("headers %v err %v", headers, err)
			}
		}
	}
}

// A record whose message checksum does not verify is refused.
func TestPollRefusesCorruptRecord(t *testing.T) {
	log := &fakeLog{}
	s := newFakeServer(t, log.handle)
	c := s.dial(t)
	if _, err := c.LoginUser("iggy", "iggy"); err != nil {
		t.Fatal(err)
	}
	part := wire.Partitioning{Kind: wire.PartitioningPartitionID}
	if _, err := c.SendMessages(wire.NumericID(0), wire.NumericID(0), part, testMessages(3)); err != nil {
		t.Fatal(err)
	}
	log.corrupt = true
	p := uint32(0)
	_, _, err := c.PollMessages(Consumer(1), wire.NumericID(0), wire.NumericID(0), &p, wire.PollOffset, 0, 10, false)
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("err %v", err)
	}
}

// Messages sent with a zero id get a random UUID v4.
func TestZeroIDGetsUUID(t *testing.T) {
	rec, err := buildRecord([]Message{{Payload: []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	it := batch.FramesOf(rec)
	f, _ := it.Next()
	if f.ID == ([16]byte{}) || f.ID[6]>>4 != 4 {
		t.Fatalf("id %x", f.ID)
	}
}
