package node

import "container/list"

// Failed password logins make the next login from the same source address,
// and for the same username, wait (issue 11 item 4). The first
// loginFailuresFree failures cost nothing; each one after waits twice as
// long as the last, from loginBackoffBaseTicks up to the table's cap. A
// success forgets its source's entry, not its username's (a flood against
// root must not be reset by root's own logins); an entry with no failure
// for loginFailuresForgetTicks is forgotten. A waiting login is held, not
// refused (logins.go): its answer is the true one, only later.
//
// The tables are admission state of this node, not replicated: every
// replica throttles the logins it checks.
const (
	loginFailuresFree          = 3
	loginBackoffBaseTicks      = 10     // 100 ms
	loginSourceBackoffTicksMax = 3000   // 30 s
	loginUserBackoffTicksMax   = 500    // 5 s
	loginFailuresForgetTicks   = 60_000 // 10 min
	// The tables are bounded; past their capacity the entry that failed
	// least recently goes.
	loginSourcesMax   = 4096
	loginUsernamesMax = 4096
	// loginBackoffShiftMax keeps the doubling far from overflowing.
	loginBackoffShiftMax = 16
)

// failures is one key's record of consecutive failed logins.
type failures struct {
	key       string
	count     uint32
	lastTick  uint64 // the newest failure
	untilTick uint64 // no check before this tick
}

// failureTable holds the failures of at most capacity keys, the most
// recently failed first.
type failureTable struct {
	capacity  int
	waitMax   uint64
	entries   map[string]*list.Element // of *failures
	byRecency list.List
}

func newFailureTable(capacity int, waitTicksMax uint64) *failureTable {
	return &failureTable{capacity: capacity, waitMax: waitTicksMax, entries: map[string]*list.Element{}}
}

// lookup returns key's live record, forgetting one that went quiet.
func (t *failureTable) lookup(key string, now uint64) *failures {
	e, ok := t.entries[key]
	if !ok {
		return nil
	}
	f := e.Value.(*failures)
	if now-f.lastTick >= loginFailuresForgetTicks {
		t.forget(key)
		return nil
	}
	return f
}

// blockedUntil is the tick before which key's next check must wait (0: none).
func (t *failureTable) blockedUntil(key string, now uint64) uint64 {
	if f := t.lookup(key, now); f != nil {
		return f.untilTick
	}
	return 0
}

// failed records a failure of key at now and sets its next wait.
func (t *failureTable) failed(key string, now uint64) {
	f := t.lookup(key, now)
	if f == nil {
		if len(t.entries) >= t.capacity {
			t.forget(t.byRecency.Back().Value.(*failures).key)
		}
		f = &failures{key: key}
		t.entries[key] = t.byRecency.PushFront(f)
	}
	t.byRecency.MoveToFront(t.entries[key])
	f.count++
	f.lastTick = now
	if f.count > loginFailuresFree {
		shift := min(f.count-loginFailuresFree-1, loginBackoffShiftMax)
		f.untilTick = now + min(uint64(loginBackoffBaseTicks)<<shift, t.waitMax)
	}
}

func (t *failureTable) forget(key string) {
	if e, ok := t.entries[key]; ok {
		t.byRecency.Remove(e)
		delete(t.entries, key)
	}
}
