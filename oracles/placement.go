package oracles

import (
	"fmt"
	"slices"
)

// Placement marks: a sweep of replica sets must see a completed move of a
// partition's primary (the node's mark) and a balanced end checked.
const (
	MarkMoveCompleted = "node.placement.move_completed"
	MarkBalanced      = "oracle.placement.balanced"
)

// rebalanceGapMin is the gap rebalancing closes (PLACE-9): a primary
// leading at least this many more partitions than another ready member.
const rebalanceGapMin = 2

// PartitionPrimary is one partition group as the live replicas report it.
type PartitionPrimary struct {
	Name      string
	Members   []uint8 // the replicas holding it
	Primaries []uint8 // the live members that lead it in normal status
}

// CheckBalanced fails unless every partition has exactly one primary
// among its members (PLACE-19) and no primary leads at least two more
// partitions than another live member of one it leads (PLACE-9: the end
// of rebalancing, so PLACE-14's 20 each of 100 on five nodes).
func CheckBalanced(parts []PartitionPrimary, live uint32) error {
	var loads [32]int
	for _, p := range parts {
		if len(p.Primaries) != 1 || !slices.Contains(p.Members, p.Primaries[0]) {
			return fmt.Errorf("partition %s: primaries %v among members %v, want one", p.Name, p.Primaries, p.Members)
		}
		loads[p.Primaries[0]]++
	}
	for _, p := range parts {
		from := p.Primaries[0]
		for _, m := range p.Members {
			if live&(1<<m) != 0 && loads[from] >= loads[m]+rebalanceGapMin {
				return fmt.Errorf("partition %s: its primary %d leads %d, its member %d leads %d: not rebalanced",
					p.Name, from, loads[from], m, loads[m])
			}
		}
	}
	return nil
}
