package oracles

import (
	"fmt"
	"strings"

	"github.com/iggygo/iggy/core/mark"
)

// Marks the simulator hits when a run exercised a rare path. A sweep that
// never hit one of SweepRequired passed vacuously and fails.
const (
	// MarkRestart: the node crashed and booted again from its disk.
	MarkRestart = "sim.node.restarted"
	// MarkLostUnsynced: a power loss discarded unsynced writes and the node
	// booted again from what was left.
	MarkLostUnsynced = "sim.recovery.lost_unsynced_writes"
	// MarkPorcupineRead: porcupine checked a read that returned messages.
	MarkPorcupineRead = "oracle.porcupine.read_checked"
)

// SweepRequired are the marks every sweep of one node must hit (a replica
// set records no crash, so its offset reads are never judged across one).
var SweepRequired = []string{MarkRestart, MarkLostUnsynced, MarkPorcupineRead,
	MarkOffsetPersistedCrash, MarkOffsetReplicatedKill, MarkOffsetUncoveredCrash}

// CheckVacuity fails when a required mark was never hit.
func CheckVacuity(c mark.Counts, required ...string) error {
	if missing := c.Missing(required...); len(missing) > 0 {
		return fmt.Errorf("vacuous: never hit %s", strings.Join(missing, ", "))
	}
	return nil
}

// Pending is a request still unanswered when the liveness budget ran out.
type Pending struct {
	Client int
	What   string
	Since  uint64 // tick it was first sent
}

// CheckLiveness fails when anything is still pending after heal: every
// request must complete within the budget once faults stop.
func CheckLiveness(pending []Pending, budgetTicks uint64) error {
	if len(pending) == 0 {
		return nil
	}
	var b strings.Builder
	for i, p := range pending {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "client %d: %s (since tick %d)", p.Client, p.What, p.Since)
	}
	return fmt.Errorf("%d requests pending %d ticks after heal: %s", len(pending), budgetTicks, b.String())
}
