package node_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sweepStepsMax bounds the disk completions one sweep point runs.
const sweepStepsMax = 10_000

// runSteps lets the node and disk run for at most n completions (taking
// the node's output between them) and reports how many ran.
func (w *world) runSteps(n int) int {
	done := 0
	for done < n {
		w.takeReady()
		if w.node == nil || (w.disk.Pending() == 0 && !w.stepped) {
			return done
		}
		if w.disk.Pending() > 0 {
			w.stepDisk(1)
			done++
		}
	}
	w.takeReady()
	return done
}

// bootOutcome restarts after a crash and reports how the node came up.
func bootOutcome(w *world) string {
	w.out = nil
	w.start(rootCredentials("iggy", "iggy"))
	for _, l := range w.out {
		if strings.HasPrefix(l, "fatal:") {
			return l
		}
	}
	if !slices.Contains(w.out, "booted") {
		return "never booted: " + strings.Join(w.out, " | ")
	}
	return ""
}

// A power loss at any point of the very first boot (creating the superblock
// slots and the journal, committing root as op 1) must leave storage the
// next boot can start from: as fresh storage, or with root replayed.
//
// covers STOR-1, ROOT-1, ROOT-5, ROOT-9
func TestCrashAtEveryStepOfFreshBoot(t *testing.T) {
	sweepFreshBoot(t)
}

func sweepFreshBoot(t *testing.T) {
	for _, torn := range []bool{false, true} {
		for seed := uint64(1); seed <= 3; seed++ {
			for k := 0; k < sweepStepsMax; k++ {
				w := newWorld(t, seed)
				w.node = nil
				w.startUnsettled(rootCredentials("iggy", "iggy"))
				if w.runSteps(k) < k {
					break // the whole boot took fewer steps: every point was tried
				}
				w.crash(torn)
				if got := bootOutcome(w); got != "" {
					t.Fatalf("torn=%t seed %d, crash after %d completions: %s", torn, seed, k, got)
				}
				w.checkLogin()
			}
		}
	}
}

// crash is a power loss, torn or not, with the node down afterwards.
func (w *world) crash(torn bool) {
	w.disk.CrashKeeping(func(_ string, unsynced uint64) uint64 {
		if torn {
			return w.rng.Uint64N(unsynced + 1)
		}
		return 0
	})
	w.down()
}

func (w *world) checkLogin() {
	w.t.Helper()
	for _, line := range []string{"connect sweep new-id", "login sweep iggy iggy"} {
		out := w.run(line)
		if line[0] == 'l' && (len(out) == 0 || !strings.HasPrefix(out[len(out)-1], "ok user=0")) {
			w.t.Fatalf("after the crash, root cannot log in: %v", out)
		}
	}
	w.run("disconnect sweep")
}

// A power loss at any point of a workload: the node boots again, everything
// acknowledged as persisted reads back, and metadata acknowledged before
// the crash is there.
//
// covers STOR-7, STOR-9, STOR-45, RES-38
func TestCrashAtEveryStepOfAWorkload(t *testing.T) {
	script := []string{
		"connect c1", "login c1 iggy iggy", "create-stream c1 orders",
		"create-topic c1 orders safe partitions=2 durability=persisted",
		"create-topic c1 orders fast partitions=1",
		"send c1 orders safe partition=0 count=3 nowait", "send c1 orders fast partition=0 count=2 nowait",
		"send c1 orders safe partition=1 count=2 nowait", "store-offset c1 orders safe partition=0 offset=1 nowait",
		"create-stream c1 other nowait",
	}
	checked := 0
	defer func() {
		if checked != 8 {
			t.Errorf("%d of 8 sweeps ran to the end", checked)
		}
	}()
	for _, torn := range []bool{false, true} {
		for seed := uint64(1); seed <= 4; seed++ {
			for k := 0; k < sweepStepsMax; k++ {
				w := newWorld(t, seed)
				w.start(rootCredentials("iggy", "iggy"))
				acked := w.runPrefix(script, k)
				if acked == nil {
					if k < 10 {
						t.Fatalf("the workload ran only %d disk requests", k)
					}
					checked++
					break
				}
				w.crash(torn)
				if got := bootOutcome(w); got != "" {
					t.Fatalf("torn=%t seed %d, crash after %d completions: %s", torn, seed, k, got)
				}
				w.checkAcked(acked, fmt.Sprintf("torn=%t seed %d, crash after %d completions", torn, seed, k))
			}
		}
	}
}

// runPrefix runs script, then lets the disk complete k more requests, and
// returns every reply line seen; nil when the run finished before k.
func (w *world) runPrefix(script []string, k int) []string {
	var seen []string
	for _, line := range script {
		seen = append(seen, w.run(line)...)
	}
	w.out = nil
	ran := w.runSteps(k)
	seen = append(seen, w.out...)
	if ran < k {
		return nil
	}
	return seen
}

// checkAcked checks that what the replies acknowledged survived.
func (w *world) checkAcked(acked []string, where string) {
	w.t.Helper()
	w.run("connect c1 new-id")
	w.run("login c1 iggy iggy")
	want := map[string]string{
		"poll c1 orders safe partition=0 offset=0 count=100": "polled 3 partition=0 offsets 0..2 current=2 [b1#0-2]",
		"poll c1 orders safe partition=1 offset=0 count=100": "polled 2 partition=1 offsets 0..1 current=1 [b3#0-1]",
		"get-stream c1 orders":                               "stream id=0 name=orders",
		"get-stream c1 other":                                "stream id=1 name=other",
	}
	acks := map[string]string{
		"poll c1 orders safe partition=0 offset=0 count=100": "ok b1 ",
		"poll c1 orders safe partition=1 offset=0 count=100": "ok b3 ",
		"get-stream c1 orders":                               "ok stream id=0 name=orders",
		"get-stream c1 other":                                "ok stream id=1 name=other",
	}
	for _, cmd := range []string{"get-stream c1 orders", "get-stream c1 other",
		"poll c1 orders safe partition=0 offset=0 count=100", "poll c1 orders safe partition=1 offset=0 count=100"} {
		if !containsPrefix(acked, acks[cmd]) {
			continue
		}
		out := w.run(cmd)
		if len(out) != 1 || !strings.HasPrefix(out[0], want[cmd]) {
			w.t.Fatalf("%s: %s after it was acknowledged: got %v, want %s", where, cmd, out, want[cmd])
		}
	}
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimPrefix(l, "c1: "), prefix) {
			return true
		}
	}
	return false
}
