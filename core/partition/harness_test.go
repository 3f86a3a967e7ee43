package partition

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
	"github.com/zeebo/xxh3"
)

const testDir = "streams/0/topics/1/partitions/2"

func testConfig() Config {
	return Config{
		StreamID: 0, TopicID: 1, PartitionID: 2, Dir: testDir,
		SegmentSizeBytes: 1 << 20, CacheBytesMax: 1 << 20, ReadBytesMax: readBytesMin,
	}
}

// harness drives one Log over a fake disk like the node would: inputs,
// then Flush, then the disk runs, then events are collected.
type harness struct {
	t      testing.TB
	cfg    Config
	disk   *fakeDisk
	log    *Log
	events []Event
	now    uint64 // µs
	seq    uint64 // messages appended so far: payload "m<seq>"
	pollID uint64
	// syncTokens are the tokens of appends that asked for a sync.
	syncTokens map[uint64]bool
}

func newHarness(t testing.TB, cfg Config) *harness {
	h := &harness{t: t, cfg: cfg, disk: newFakeDisk(), now: 1_000_000}
	h.log = New(cfg, h.disk)
	h.log.Create(0)
	h.step()
	return h
}

// reopen is a restart over the same disk: a new Log that recovers.
func (h *harness) reopen() Recovered { return h.reopenAt(0) }

// reopenAt is a restart that recovers as incarnation rev.
func (h *harness) reopenAt(rev uint64) Recovered {
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Recover(rev)
	h.step()
	for _, e := range h.events {
		if r, ok := e.(Recovered); ok {
			return r
		}
	}
	h.t.Fatal("no Recovered event")
	return Recovered{}
}

// step is node steps until the log is quiet: Flush, then the disk runs
// every request (completions may unblock more queued appends).
func (h *harness) step() {
	for {
		h.log.Flush()
		if len(h.disk.queue) == 0 {
			break
		}
		h.disk.run(h.log)
	}
	h.events = append(h.events, h.log.TakeEvents()...)
}

func payloadOf(seq uint64) []byte { return []byte(fmt.Sprintf("m%d", seq)) }

// record builds an unstamped record of n messages with the next payloads.
func (h *harness) record(n int) []byte {
	msgs := make([]batch.Message, n)
	for i := range msgs {
		msgs[i] = batch.Message{ID: [16]byte{byte(h.seq)}, OriginTimestamp: h.now - 5, Payload: payloadOf(h.seq)}
		h.seq++
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		h.t.Fatalf("Build: %d", code)
	}
	return rec
}

func (h *harness) append(n int, sync bool) (token, base uint64) {
	rec := h.record(n)
	if code := h.log.CanAppend(len(rec)); code != wire.OK {
		h.t.Fatalf("CanAppend: %d", code)
	}
	token, base = h.log.Append(rec, h.now, sync)
	if sync {
		if h.syncTokens == nil {
			h.syncTokens = make(map[uint64]bool)
		}
		h.syncTokens[token] = true
	}
	return token, base
}

// fill appends batches of n messages until count messages were appended.
func (h *harness) fill(batches, n int, sync bool) {
	for range batches {
		h.append(n, sync)
		h.now += 10
	}
	h.step()
}

func (h *harness) committed() map[uint64]Committed {
	out := make(map[uint64]Committed)
	for _, e := range h.events {
		if c, ok := e.(Committed); ok {
			out[c.Token] = c
		}
	}
	return out
}

func (h *harness) poll(s Strategy, value uint64, count uint32) PollDone {
	h.pollID++
	id := h.pollID
	if code := h.log.CanPoll(); code != wire.OK {
		h.t.Fatalf("CanPoll: %d", code)
	}
	h.log.Poll(id, s, value, count)
	h.step()
	for _, e := range h.events {
		if p, ok := e.(PollDone); ok && p.ID == id {
			return p
		}
	}
	h.t.Fatalf("poll %d not answered", id)
	return PollDone{}
}

type polledMessage struct {
	offset    uint64
	timestamp uint64
	payload   string
}

// messages decodes a poll reply's records, checking every record's layout
// and both checksum kinds (sliced records included).
func messages(t testing.TB, p PollDone) []polledMessage {
	t.Helper()
	var buf []byte
	for _, part := range p.Records {
		buf = append(buf, part...)
	}
	var out []polledMessage
	for len(buf) > 0 {
		if len(buf) < batch.HeaderBytes {
			t.Fatalf("reply ends inside a header")
		}
		hd := batch.ParseHeader(buf)
		rec := buf[:hd.Length]
		buf = buf[hd.Length:]
		sum := append(append([]byte(nil), rec[:40]...), rec[48:52]...)
		it := batch.FramesOf(rec)
		var n uint32
		for {
			f, ok := it.Next()
			if !ok {
				break
			}
			if xxh3.Hash(f.Bytes[8:]) != f.Checksum {
				t.Fatalf("message checksum wrong at offset %d", hd.BaseOffset+uint64(f.OffsetDelta))
			}
			sum = binary.LittleEndian.AppendUint64(sum, f.Checksum)
			out = append(out, polledMessage{hd.BaseOffset + uint64(f.OffsetDelta), hd.BaseTimestamp, string(f.Payload)})
			n++
		}
		if it.Err() != wire.OK || n != hd.Count || xxh3.Hash(sum) != hd.Checksum {
			t.Fatalf("bad record in reply: err %d count %d/%d", it.Err(), n, hd.Count)
		}
	}
	if uint32(len(out)) != p.MessagesCount {
		t.Fatalf("reply says %d messages, holds %d", p.MessagesCount, len(out))
	}
	return out
}

// expectRun checks that msgs are offsets from..from+n-1 with their payloads.
func expectRun(t testing.TB, msgs []polledMessage, from uint64, n int) {
	t.Helper()
	if len(msgs) != n {
		t.Fatalf("got %d messages, want %d", len(msgs), n)
	}
	for i, m := range msgs {
		want := from + uint64(i)
		if m.offset != want || m.payload != string(payloadOf(want)) {
			t.Fatalf("message %d: offset %d payload %q, want %d", i, m.offset, m.payload, want)
		}
	}
}
