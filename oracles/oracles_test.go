package oracles

import (
	"errors"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/mark"
)

var p0 = PartKey{Stream: "s", Topic: "t", Partition: 0}

// A persisted append acknowledged before a power loss must survive it; a
// replicated one may be lost. Porcupine sees the difference through the
// reads after the crash. (checks the oracle, not the server: CheckLinearizable)
func TestLinearizableCrashKeepsOnlyCoveredAcks(t *testing.T) {
	for _, tc := range []struct {
		policy Durability
		ok     bool
	}{{DurabilityPersisted, false}, {DurabilityReplicated, true}} {
		h := &History{
			Appends: []*Append{
				{Part: p0, Batch: 1, Count: 2, Policy: tc.policy, Outcome: OutcomeOK, Base: 0, Call: 1, Return: 2},
			},
			Crashes: []Crash{{Kind: CrashPowerLoss, At: 3}},
			Reads: []*Read{
				{Part: p0, ByOffset: true, Offset: 0, Count: 10, Current: 0, Call: 4, Return: 5, Epoch: 1},
			},
		}
		_, err := CheckLinearizable(h)
		if (err == nil) != tc.ok {
			t.Fatalf("policy %s: err = %v, want ok=%t", tc.policy, err, tc.ok)
		}
	}
}

// A read must see acknowledged appends at their offsets; an unknown append
// may or may not have happened. (checks the oracle: CheckLinearizable)
func TestLinearizableReadsAndUnknowns(t *testing.T) {
	h := &History{
		Appends: []*Append{
			{Part: p0, Batch: 1, Count: 1, Policy: DurabilityReplicated, Outcome: OutcomeOK, Base: 0, Call: 1, Return: 2},
			{Part: p0, Batch: 2, Count: 1, Policy: DurabilityReplicated, Outcome: OutcomeUnknown, Call: 3, Return: Never},
			{Part: p0, Batch: 3, Count: 1, Policy: DurabilityReplicated, Outcome: OutcomeOK, Base: 1, Call: 4, Return: 5},
		},
		Reads: []*Read{
			{Part: p0, ByOffset: true, Offset: 0, Count: 10, First: 0, Msgs: []Msg{{1, 0}, {3, 0}}, Current: 1, Call: 6, Return: 7},
		},
	}
	if _, err := CheckLinearizable(h); err != nil {
		t.Fatal(err)
	}
	h.Reads[0].Msgs = []Msg{{3, 0}, {1, 0}}
	if _, err := CheckLinearizable(h); err == nil {
		t.Fatal("swapped messages passed")
	}
}

// The O(n) oracle: a batch lost from the final log after a persisted ack
// fails, a duplicate needs a resend. (checks the oracle: CheckOffsets)
func TestOffsetsFinalLog(t *testing.T) {
	a := &Append{Part: p0, Batch: 7, Count: 2, Policy: DurabilityPersisted, Outcome: OutcomeOK, Base: 0, Call: 1, Return: 2}
	h := &History{Appends: []*Append{a}, Final: map[PartKey][]Msg{p0: {{7, 0}, {7, 1}}}}
	if err := CheckOffsets(h); err != nil {
		t.Fatal(err)
	}
	h.Final[p0] = []Msg{{7, 0}, {7, 1}, {7, 0}, {7, 1}}
	if err := CheckOffsets(h); err == nil || !strings.Contains(err.Error(), "appears 2 times") {
		t.Fatalf("duplicate without resend: %v", err)
	}
	h.Appends = append(h.Appends, &Append{Part: p0, Batch: 7, Count: 2, Policy: DurabilityPersisted, Outcome: OutcomeUnknown, Resend: true, Call: 3, Return: Never})
	if err := CheckOffsets(h); err != nil {
		t.Fatal(err)
	}
	h.Final[p0] = nil
	if err := CheckOffsets(h); err == nil || !strings.Contains(err.Error(), "is lost") {
		t.Fatalf("lost ack: %v", err)
	}
}

// Metadata: an acknowledged stream must be listed later; after damage at
// rest the violation is classified instead. (checks the oracle:
// CheckMetadata)
func TestMetadataDurability(t *testing.T) {
	h := &History{
		Creates: []*MetaCreate{{Kind: CreateStream, Stream: "a", Outcome: OutcomeOK, Call: 1, Return: 2}},
		Lists:   []*MetaList{{Streams: nil, Call: 3, Return: 4}},
	}
	if err := CheckMetadata(h); err == nil {
		t.Fatal("lost stream passed")
	}
	h.MetaDamages = []MetaDamage{{File: "metadata/x", At: 1}}
	var u *Unrecoverable
	if err := CheckMetadata(h); !errors.As(err, &u) {
		t.Fatalf("want Unrecoverable, got %v", err)
	}
}

// Consumer offsets: exact with no crash since the last acknowledged
// store; across a crash, exact for a policy that survives it (clamped only
// to the log that survived), bounded for one that does not. (checks the
// oracle: CheckConsumerOffsets)
func TestConsumerOffsets(t *testing.T) {
	h := &History{
		Stores: []*OffsetStore{{Part: p0, Consumer: 1, Value: 5, Policy: DurabilityReplicated, Outcome: OutcomeOK, Call: 1, Return: 2}},
		Gets:   []*OffsetGet{{Part: p0, Consumer: 1, Found: true, Value: 4, Call: 3, Return: 4}},
	}
	if err := CheckConsumerOffsets(h, mark.Discard{}); err == nil {
		t.Fatal("stale read passed")
	}
	h.Gets[0].Found = false
	if err := CheckConsumerOffsets(h, mark.Discard{}); err == nil {
		t.Fatal("lost store passed")
	}
}

// One store of 5 over a log whose messages 0..7 were acknowledged under
// persisted, then a crash of kind crash, then a read.
func crashHistory(policy Durability, crash CrashKind, found bool, value uint64) *History {
	return &History{
		Appends: []*Append{{Part: p0, Batch: 1, Count: 8, Policy: DurabilityPersisted, Outcome: OutcomeOK, Base: 0, Call: 1, Return: 2}},
		Stores: []*OffsetStore{
			{Part: p0, Consumer: 1, Value: 3, Policy: policy, Outcome: OutcomeOK, Call: 3, Return: 4},
			{Part: p0, Consumer: 1, Value: 5, Policy: policy, Outcome: OutcomeOK, Call: 5, Return: 6},
		},
		Crashes: []Crash{{Kind: crash, At: 7, Epoch: 1}},
		Gets:    []*OffsetGet{{Part: p0, Consumer: 1, Found: found, Value: value, Call: 8, Return: 9}},
	}
}

// A covered crash (persisted, or replicated across a kill) keeps the
// store; an uncovered one may lose it, back to an older store or nothing,
// but never to a value that was not stored. Each case hits its mark.
// (checks the oracle: CheckConsumerOffsets)
func TestConsumerOffsetsAcrossCrash(t *testing.T) {
	for _, tc := range []struct {
		policy Durability
		crash  CrashKind
		found  bool
		value  uint64
		ok     bool
		mark   string
	}{
		{DurabilityPersisted, CrashPowerLoss, true, 5, true, MarkOffsetPersistedCrash},
		{DurabilityPersisted, CrashPowerLoss, true, 3, false, MarkOffsetPersistedCrash},
		{DurabilityPersisted, CrashPowerLoss, true, 0, false, MarkOffsetPersistedCrash}, // a clamp below the kept log
		{DurabilityPersisted, CrashPowerLoss, false, 0, false, MarkOffsetPersistedCrash},
		{DurabilityReplicated, CrashKill, true, 3, false, MarkOffsetReplicatedKill},
		{DurabilityReplicated, CrashKill, true, 5, true, MarkOffsetReplicatedKill},
		{DurabilityReplicated, CrashPowerLoss, true, 3, true, MarkOffsetUncoveredCrash},
		{DurabilityReplicated, CrashPowerLoss, false, 0, true, MarkOffsetUncoveredCrash},
		{DurabilityReplicated, CrashPowerLoss, true, 2, false, MarkOffsetUncoveredCrash}, // never stored, below the head
		{DurabilityNone, CrashKill, true, 3, true, MarkOffsetUncoveredCrash},
		{DurabilityPersisted, CrashPowerLoss, true, 6, false, MarkOffsetPersistedCrash}, // above every store
	} {
		marks := mark.Counts{}
		err := CheckConsumerOffsets(crashHistory(tc.policy, tc.crash, tc.found, tc.value), marks)
		if (err == nil) != tc.ok {
			t.Errorf("%s offsets, crash %d, read %t %d: err = %v, want ok=%t", tc.policy, tc.crash, tc.found, tc.value, err, tc.ok)
		}
		if tc.value <= 5 && marks[tc.mark] == 0 {
			t.Errorf("%s offsets, crash %d: mark %s not hit: %v", tc.policy, tc.crash, tc.mark, marks)
		}
	}
}

// A persisted offset beyond what survived of the log is clamped to the
// kept head at recovery (CGRP-9): the clamp is allowed, a lower value
// (even an earlier store's) is not; a log that may have come back empty deletes it. (checks the
// oracle: CheckConsumerOffsets)
func TestConsumerOffsetsClampedToKeptLog(t *testing.T) {
	h := crashHistory(DurabilityPersisted, CrashPowerLoss, true, 4)
	h.Appends[0].Count = 5 // messages 0..4 kept, the store of 5 is past them
	if err := CheckConsumerOffsets(h, mark.Discard{}); err != nil {
		t.Fatalf("clamp to the kept head: %v", err)
	}
	h.Gets[0].Value = 3 // an earlier store's, but below the kept head
	if err := CheckConsumerOffsets(h, mark.Discard{}); err == nil {
		t.Fatal("a value below the kept head passed")
	}
	h.Appends[0].Policy = DurabilityReplicated // the log may have come back empty
	h.Gets[0].Found = false
	if err := CheckConsumerOffsets(h, mark.Discard{}); err != nil {
		t.Fatalf("offset deleted over an empty log: %v", err)
	}
}

// A record damaged at rest before a crash lets its recovery cut the log
// there, and the persisted offset is clamped to what was kept (CGRP-9):
// the clamp to the record before the damage passes, a value below it does
// not, and damage at offset 0 may leave the partition empty, the offset
// deleted. (Seed 58 swarm: a store of 143 read back as 72 after damage at
// offset 73.) (checks the oracle: CheckConsumerOffsets)
func TestConsumerOffsetsClampedBeforeDamage(t *testing.T) {
	h := crashHistory(DurabilityPersisted, CrashPowerLoss, true, 2)
	if err := CheckConsumerOffsets(h, mark.Discard{}); err == nil {
		t.Fatal("a value never stored, below the kept head, passed without damage")
	}
	h.Damages = []Damage{{Part: p0, Offset: 3, At: 6}}
	if err := CheckConsumerOffsets(h, mark.Discard{}); err != nil {
		t.Fatalf("clamp to the record before the damage: %v", err)
	}
	h.Gets[0].Value = 1
	if err := CheckConsumerOffsets(h, mark.Discard{}); err == nil {
		t.Fatal("a value below the record before the damage passed")
	}
	h.Damages[0].Offset = 0
	h.Gets[0].Found = false
	if err := CheckConsumerOffsets(h, mark.Discard{}); err != nil {
		t.Fatalf("offset deleted over a log damaged from its start: %v", err)
	}
}

// Within an epoch a read that starts after another returned never reports a
// lower current offset; a later epoch (after a crash) may.
func TestOffsetsCurrentMonotonic(t *testing.T) {
	h := &History{Reads: []*Read{
		{Part: p0, ByOffset: true, Count: 10, Current: 5, Call: 1, Return: 2, Epoch: 1},
		{Part: p0, ByOffset: true, Count: 10, Current: 4, Call: 3, Return: 4, Epoch: 1},
	}}
	if err := CheckOffsets(h); err == nil || !strings.Contains(err.Error(), "went back") {
		t.Fatalf("current went back: %v", err)
	}
	h.Reads[1].Epoch = 2
	if err := CheckOffsets(h); err != nil {
		t.Fatal(err)
	}
}

// A sweep that never hit a required mark is vacuous and must fail.
func TestCheckVacuity(t *testing.T) {
	c := mark.Counts{MarkRestart: 1, MarkPorcupineRead: 3, MarkOffsetPersistedCrash: 1, MarkOffsetReplicatedKill: 1, MarkOffsetUncoveredCrash: 1}
	if err := CheckVacuity(c, SweepRequired...); err == nil || !strings.Contains(err.Error(), MarkLostUnsynced) {
		t.Fatalf("missing mark: %v", err)
	}
	c.Hit(MarkLostUnsynced)
	if err := CheckVacuity(c, SweepRequired...); err != nil {
		t.Fatal(err)
	}
}

// An offset acknowledged for a second batch while the first one's
// acknowledgement still holds fails; after a power loss its policy does
// not cover, or unbounded damage before it, the reuse is allowed; a
// bounded damage (a truncated sealed segment) allows none. (issue 11)
// covers STOR-7
func TestNoReuseOfAcknowledgedOffsets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  Durability
		crash   CrashKind
		damages []Damage
		ok      bool
	}{
		{"persisted across a kill", DurabilityPersisted, CrashKill, nil, false},
		{"replicated across a power loss", DurabilityReplicated, CrashPowerLoss, nil, true},
		{"unbounded damage", DurabilityPersisted, CrashKill, []Damage{{Part: p0, Offset: 1, At: 3}}, true},
		{"bounded damage", DurabilityPersisted, CrashKill, []Damage{{Part: p0, Offset: 1, End: 2, At: 3}}, false},
	} {
		h := &History{
			Appends: []*Append{
				{Part: p0, Batch: 1, Count: 3, Policy: tc.policy, Outcome: OutcomeOK, Base: 0, Call: 1, Return: 2},
				{Part: p0, Batch: 2, Count: 1, Policy: tc.policy, Outcome: OutcomeOK, Base: 1, Call: 5, Return: 6},
			},
			Crashes: []Crash{{Kind: tc.crash, At: 4}},
			Damages: tc.damages,
		}
		if err := CheckNoReuse(h); (err == nil) != tc.ok {
			t.Fatalf("%s: err = %v, want ok=%t", tc.name, err, tc.ok)
		}
	}
}
