package partition

import "encoding/binary"

// indexEntryBytes is one sparse index entry: offset, timestamp and position
// of the first batch of one flushed chunk (§10.3).
const indexEntryBytes = 24

type indexEntry struct {
	offset    uint64
	timestamp uint64
	position  uint64
}

func (e indexEntry) encode() []byte {
	b := make([]byte, indexEntryBytes)
	binary.LittleEndian.PutUint64(b[0:], e.offset)
	binary.LittleEndian.PutUint64(b[8:], e.timestamp)
	binary.LittleEndian.PutUint64(b[16:], e.position)
	return b
}

// parseIndex decodes an .index file. A trailing partial entry is ignored
// (§10.3), and decoding stops at the first entry that is out of order or
// out of range - offsets and positions strictly ascending, timestamps not
// descending, the offset at or after the segment start, the position
// inside the log - because an index is only a hint and can be rebuilt.
func parseIndex(b []byte, segStart, logBytes uint64) []indexEntry {
	n := len(b) / indexEntryBytes
	entries := make([]indexEntry, 0, n)
	for i := range n {
		e := indexEntry{
			offset:    binary.LittleEndian.Uint64(b[i*indexEntryBytes:]),
			timestamp: binary.LittleEndian.Uint64(b[i*indexEntryBytes+8:]),
			position:  binary.LittleEndian.Uint64(b[i*indexEntryBytes+16:]),
		}
		if e.offset < segStart || e.position >= logBytes {
			break
		}
		if i > 0 {
			p := entries[i-1]
			if e.offset <= p.offset || e.position <= p.position || e.timestamp < p.timestamp {
				break
			}
		}
		entries = append(entries, e)
	}
	return entries
}

// lastAtOrBefore is the index of the last entry with offset <= off, or -1.
func lastAtOrBefore(entries []indexEntry, off uint64) int {
	lo, hi := 0, len(entries)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if entries[mid].offset <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// lastBeforeTimestamp is the index of the last entry with timestamp < ts, or -1.
func lastBeforeTimestamp(entries []indexEntry, ts uint64) int {
	lo, hi := 0, len(entries)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if entries[mid].timestamp < ts {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}
