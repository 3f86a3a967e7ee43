package partition

// SealedWatermark is the last offset of the n-th oldest deletable segment: a
// DeleteSegments count turned into the watermark the metadata log commits
// (protocol-data.md 4). It is 0 when no segment can be deleted.
func (l *Log) SealedWatermark(n uint32) uint64 {
	k := min(int(n), l.deletable())
	if k == 0 {
		return 0
	}
	return l.segments[k-1].next - 1
}

// DeleteThrough deletes the oldest deletable segments whose messages all lie
// at or below watermark, the committed form of DeleteSegments.
func (l *Log) DeleteThrough(watermark uint64) int {
	if l.phase != phaseReady {
		return 0
	}
	k := 0
	for k < l.deletable() && l.segments[k].next > 0 && l.segments[k].next-1 <= watermark {
		k++
	}
	l.deleteOldest(k)
	return k
}
