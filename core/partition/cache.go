package partition

import "github.com/iggygo/iggy/internal/assert"

// cachedRecord is a committed record kept in memory for polls.
type cachedRecord struct {
	rec       []byte
	base      uint64
	count     uint32
	timestamp uint64
}

// tailCache holds the newest committed records, contiguous and ending at
// the commit frontier, within bytesMax bytes. The records are the very
// slices that were appended and written: nothing is copied.
type tailCache struct {
	records  []cachedRecord
	head     int // records[:head] are evicted
	bytes    uint64
	bytesMax uint64
}

// cacheCompactMin avoids compacting a tiny queue over and over.
const cacheCompactMin = 64

func (c *tailCache) view() []cachedRecord { return c.records[c.head:] }

func (c *tailCache) add(r cachedRecord) {
	if v := c.view(); len(v) > 0 {
		last := v[len(v)-1]
		assert.That(last.base+uint64(last.count) == r.base, "partition: cache would not be contiguous")
	}
	if uint64(len(r.rec)) > c.bytesMax {
		c.clear() // a newer record is not cached: the cache must stay a suffix
		return
	}
	c.records = append(c.records, r)
	c.bytes += uint64(len(r.rec))
	for c.bytes > c.bytesMax {
		c.popFront()
	}
}

func (c *tailCache) popFront() {
	c.bytes -= uint64(len(c.records[c.head].rec))
	c.records[c.head] = cachedRecord{}
	c.head++
	if c.head >= cacheCompactMin && c.head*2 >= len(c.records) {
		n := copy(c.records, c.records[c.head:])
		clear(c.records[n:])
		c.records = c.records[:n]
		c.head = 0
	}
}

// dropBefore evicts the records that end at or before off (retention).
func (c *tailCache) dropBefore(off uint64) {
	for v := c.view(); len(v) > 0 && v[0].base+uint64(v[0].count) <= off; v = c.view() {
		c.popFront()
	}
}

func (c *tailCache) clear() {
	clear(c.records)
	c.records, c.head, c.bytes = c.records[:0], 0, 0
}
