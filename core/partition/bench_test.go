package partition

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire/batch"
)

// nullDisk completes every request at once and keeps no data: it measures
// the log itself.
type nullDisk struct {
	queue  []storage.Request
	nextID storage.ReqID
}

func (d *nullDisk) Submit(r storage.Request) storage.ReqID {
	d.nextID++
	r.ID = d.nextID
	d.queue = append(d.queue, r)
	return r.ID
}

func (d *nullDisk) run(l *Log) {
	for len(d.queue) > 0 {
		r := d.queue[0]
		d.queue = d.queue[1:]
		l.Complete(storage.Completion{ID: r.ID})
	}
	d.queue = d.queue[:0]
}

func benchRecord(b *testing.B, messages, payloadBytes int) []byte {
	msgs := make([]batch.Message, messages)
	for i := range msgs {
		msgs[i] = batch.Message{ID: [16]byte{byte(i)}, OriginTimestamp: 1, Payload: make([]byte, payloadBytes)}
	}
	rec, _ := batch.Build(msgs)
	return rec
}

const benchAppendsPerFlush = 16

// BenchmarkAppend: stamp, queue, flush (one vectored write per 16
// appends), complete and commit 10-message records of 100-byte payloads.
func BenchmarkAppend(b *testing.B) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1 << 30
	d := &nullDisk{}
	l := New(cfg, d)
	l.Create(0)
	d.run(l)
	tmpl := benchRecord(b, 10, 100)
	recs := make([][]byte, benchAppendsPerFlush)
	for i := range recs {
		recs[i] = append([]byte(nil), tmpl...)
	}
	b.SetBytes(int64(len(tmpl)))
	b.ReportAllocs()
	i := 0
	now := uint64(1)
	for b.Loop() {
		l.Append(recs[i], now, false)
		i++
		if i == benchAppendsPerFlush {
			i = 0
			now++
			l.Flush()
			d.run(l)
			l.TakeEvents()
		}
	}
}

func pollBench(b *testing.B, cfg Config, count uint32) {
	h := newHarness(b, cfg)
	const records = 2000
	for i := range records {
		h.log.Append(benchRecord(b, 10, 100), h.now, false)
		h.now++
		if i%benchAppendsPerFlush == 0 {
			h.step()
		}
	}
	h.step()
	h.events = nil
	var bytes int64
	for b.Loop() {
		off := uint64(h.pollID*37) % (records * 10)
		h.pollID++
		h.log.Poll(h.pollID, StrategyOffset, off, count)
		h.log.Flush()
		h.disk.run(h.log)
		h.disk.log = h.disk.log[:0]
		for _, e := range h.log.TakeEvents() {
			if p, ok := e.(PollDone); ok {
				for _, r := range p.Records {
					bytes += int64(len(r))
				}
			}
		}
	}
	b.SetBytes(bytes / int64(max(b.N, 1)))
}

// BenchmarkPollCached polls 100 messages from the tail cache.
func BenchmarkPollCached(b *testing.B) {
	cfg := testConfig()
	cfg.CacheBytesMax = 64 << 20
	cfg.SegmentSizeBytes = 1 << 30
	pollBench(b, cfg, 100)
}

// BenchmarkPollDisk polls 100 messages through index lookup, a read from
// the in-memory fake disk and the checksum verification.
func BenchmarkPollDisk(b *testing.B) {
	cfg := testConfig()
	cfg.CacheBytesMax = 0
	cfg.SegmentSizeBytes = 1 << 20
	pollBench(b, cfg, 100)
}
