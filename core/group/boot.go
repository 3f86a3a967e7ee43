package group

import (
	"fmt"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/zeebo/xxh3"
)

// NewestSlot picks the newest valid superblock among a group's slots as
// boot read them (data[i] from files[i]; an empty one never written). ok is
// false when no slot is valid. A slot of an unknown version is refused, not
// skipped (STOR-18): err names it.
func NewestSlot(files []string, data [][]byte) (sb vsr.Superblock, ok bool, err error) {
	if len(files) != len(data) || len(data) > 2 {
		return sb, false, fmt.Errorf("group: %d superblock slots read from %d files", len(data), len(files))
	}
	var slots [2][]byte
	for i, slot := range data {
		if err := vsr.CheckSuperblockVersion(slot); err != nil {
			return sb, false, fmt.Errorf("refusing %s: %w", files[i], err)
		}
		slots[i] = slot
	}
	sb, ok = vsr.Newest(slots[0], slots[1])
	return sb, ok, nil
}

// ImageMatches reports that img is the image the superblock's checkpoint
// names: its size and checksum.
func ImageMatches(sb vsr.Superblock, img []byte) bool {
	return uint64(len(img)) == sb.SnapshotSize && xxh3.Hash(img) == sb.SnapshotChecksum
}
