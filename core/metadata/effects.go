package metadata

// Effect tells the node what the partition logs and sessions must do after
// a committed command. Effects come in a deterministic order: streams,
// topics, partitions and groups by ascending id, users by ascending id.
type Effect interface{ isEffect() }

// PartitionCreated: create an empty log for this incarnation.
type PartitionCreated struct {
	Stream, Topic, Partition uint32
	Revision                 uint64
}

// PartitionDeleted: delete the log of this incarnation and its offsets.
type PartitionDeleted struct {
	Stream, Topic, Partition uint32
	Revision                 uint64
}

// PartitionPurged: drop every message and consumer offset of OldRevision
// and start the partition empty, at offset 0, as incarnation Revision.
type PartitionPurged struct {
	Stream, Topic, Partition uint32
	OldRevision, Revision    uint64
}

// PartitionTruncated: delete the sealed segments that end below Watermark.
type PartitionTruncated struct {
	Stream, Topic, Partition uint32
	Revision                 uint64
	Watermark                uint64
}

// PrimaryMoveGranted: From, if it still leads the partition's group,
// drains its accepted writes and hands the group to To (PLACE-12).
type PrimaryMoveGranted struct {
	Stream, Topic, Partition uint32
	Revision                 uint64
	From, To                 uint8
}

// GroupRebalanced: a group's assignment changed; members should re-sync.
type GroupRebalanced struct {
	Stream, Topic, Group uint32
	Generation           uint64
}

// GroupDeleted: drop the group's stored offsets in every partition.
type GroupDeleted struct{ Stream, Topic, Group uint32 }

// PermissionsPruned: a delete removed grants from this user.
type PermissionsPruned struct{ User uint32 }

// UserDeleted: end every session of this user.
type UserDeleted struct{ User uint32 }

// UserDeactivated: end every session of this user.
type UserDeactivated struct{ User uint32 }

func (PartitionCreated) isEffect()   {}
func (PartitionDeleted) isEffect()   {}
func (PartitionPurged) isEffect()    {}
func (PartitionTruncated) isEffect() {}
func (GroupRebalanced) isEffect()    {}
func (PrimaryMoveGranted) isEffect() {}
func (GroupDeleted) isEffect()       {}
func (PermissionsPruned) isEffect()  {}
func (UserDeleted) isEffect()        {}
func (UserDeactivated) isEffect()    {}
