package partition

// A sealed segment ends where the next one starts: a damaged one kept by
// recovery (recover.go) is followed by offsets no segment holds, deleted
// with it.

// SealedWatermark is the last offset of the n-th oldest deletable segment: a
// DeleteSegments count turned into the watermark the metadata log commits
// (protocol-data.md 4). It is 0 when no segment can be deleted.
func (l *Log) SealedWatermark(n uint32) uint64 {
	k := min(int(n), l.deletable())
	if k == 0 {
		return 0
	}
	return l.segments[k].start - 1
}

// SealedGen changes whenever SealedEnds would answer differently.
func (l *Log) SealedGen() uint64 { return l.sealedGen }

// SealedEnds is the last offset of each of the oldest deletable segments,
// at most max of them: SealedWatermark(n) for n = 1..len, for a mirror of
// the log on another shard.
func (l *Log) SealedEnds(max int) []uint64 {
	k := min(max, l.deletable())
	ends := make([]uint64, 0, k)
	for i := range k {
		ends = append(ends, l.segments[i+1].start-1)
	}
	return ends
}

// DeleteThrough deletes the oldest deletable segments whose messages all lie
// at or below watermark, the committed form of DeleteSegments.
func (l *Log) DeleteThrough(watermark uint64) int {
	if l.phase != phaseReady {
		return 0
	}
	k := 0
	for k < l.deletable() && l.segments[k+1].start-1 <= watermark {
		k++
	}
	l.deleteOldest(k)
	return k
}
