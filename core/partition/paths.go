package partition

import "strconv"

const (
	segmentDigits = 20
	extLog        = ".log"
	extIndex      = ".index"
	offsetsDir    = "offsets"
)

// segmentName is "<start offset, 20 digits><ext>" (§10.1).
func segmentName(start uint64, ext string) string {
	var buf [segmentDigits + 8]byte
	digits := strconv.AppendUint(buf[:0], start, 10)
	name := make([]byte, 0, segmentDigits+len(ext))
	for range segmentDigits - len(digits) {
		name = append(name, '0')
	}
	name = append(name, digits...)
	return string(append(name, ext...))
}

// parseSegmentName accepts only "<20 digits>.log" and "<20 digits>.index";
// every other name in a partition directory is not a segment (§10.1).
func parseSegmentName(name string) (start uint64, ext string, ok bool) {
	if len(name) <= segmentDigits {
		return 0, "", false
	}
	ext = name[segmentDigits:]
	if ext != extLog && ext != extIndex {
		return 0, "", false
	}
	for _, c := range name[:segmentDigits] {
		if c < '0' || c > '9' {
			return 0, "", false
		}
	}
	start, err := strconv.ParseUint(name[:segmentDigits], 10, 64)
	return start, ext, err == nil
}

func (l *Log) segmentPath(start uint64, ext string) string {
	return l.cfg.Dir + "/" + segmentName(start, ext)
}

// OffsetKind says whose offset a file holds (§10.5).
type OffsetKind uint8

const (
	// Consumer is a plain consumer (wire consumer kind 1).
	Consumer OffsetKind = 1
	// Group is a consumer group (wire consumer kind 2).
	Group OffsetKind = 2
	// External is a group managed outside Iggy, such as a Kafka gateway
	// (wire consumer kind 3). Its offsets may exceed the partition's range.
	External OffsetKind = 3
)

func (k OffsetKind) dir() string {
	switch k {
	case Group:
		return offsetsDir + "/groups"
	case External:
		return offsetsDir + "/external"
	}
	return offsetsDir + "/consumers"
}

func (l *Log) offsetDirPath(k OffsetKind) string { return l.cfg.Dir + "/" + k.dir() }

func (l *Log) offsetPath(k OffsetKind, id uint32) string {
	return l.offsetDirPath(k) + "/" + strconv.FormatUint(uint64(id), 10)
}
