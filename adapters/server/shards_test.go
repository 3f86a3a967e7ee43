package server

import (
	"errors"
	"testing"
	"time"
)

// msg is a test hand-off: its route and its place in its pair's order.
type msg struct{ from, to, seq int }

func msgRoute(m msg) (from, to int) { return m.from, m.to }

// pump runs one loop's side of the links the way Loop.await does (take the
// inbox, or send the waiting hand-off) until it has received want messages,
// and returns them in arrival order.
func pump(l *links[msg], want int, done chan<- []msg) {
	var got []msg
	for len(got) < want || l.count > 0 {
		out, head := l.waiting()
		select {
		case m := <-l.incoming():
			got = append(got, m)
		case out <- head:
			l.sentWaiting()
		case <-time.After(10 * time.Second):
			done <- nil // stuck
			return
		}
	}
	done <- got
}

// batch is n hand-offs from one loop to another, numbered from 0.
func batch(from, to, n int) []msg {
	out := make([]msg, n)
	for i := range out {
		out[i] = msg{from: from, to: to, seq: i}
	}
	return out
}

// checkFIFO says whether every pair's messages arrived in sending order.
func checkFIFO(t *testing.T, self int, got []msg, perPair int) {
	t.Helper()
	next := map[int]int{}
	for _, m := range got {
		if m.to != self || m.seq != next[m.from] {
			t.Fatalf("loop %d got %+v, want seq %d from %d", self, m, next[m.from], m.from)
		}
		next[m.from]++
	}
	for from, n := range next {
		if n != perPair {
			t.Fatalf("loop %d got %d messages from %d, want %d", self, n, from, perPair)
		}
	}
}

// Two loops that each hold far more for the other than its inbox takes
// (both inboxes full at once) still deliver everything, in order per pair:
// no loop blocks sending.
func TestShardLinksBothInboxesFull(t *testing.T) {
	const perPair, inbox = 5000, 4
	all := newLinks(2, inbox, msgRoute)
	for i, l := range all {
		if err := l.queue(batch(i, 1-i, perPair)); err != nil {
			t.Fatal(err)
		}
		if len(l.peers[1-i]) != inbox {
			t.Fatalf("loop %d's queue did not fill its peer's inbox", i)
		}
	}
	runPumps(t, all, perPair)
}

// With three loops each sending to both others, every pair stays in order
// and nothing waits behind a full destination for good.
func TestShardLinksThreeLoopsFIFO(t *testing.T) {
	const perPair, inbox = 3000, 2
	all := newLinks(3, inbox, msgRoute)
	for i, l := range all {
		for to := range all {
			if to == i {
				continue
			}
			if err := l.queue(batch(i, to, perPair)); err != nil {
				t.Fatal(err)
			}
		}
	}
	runPumps(t, all, perPair)
}

func runPumps(t *testing.T, all []*links[msg], perPair int) {
	t.Helper()
	done := make([]chan []msg, len(all))
	for i, l := range all {
		done[i] = make(chan []msg, 1)
		go pump(l, perPair*(len(all)-1), done[i])
	}
	for i := range all {
		got := <-done[i]
		if got == nil {
			t.Fatalf("loop %d stopped making progress", i)
		}
		checkFIFO(t, i, got, perPair)
	}
}

// A queue that never empties does not grow past what it holds: sent
// hand-offs are compacted away.
func TestShardLinksCompact(t *testing.T) {
	const backlog = 10
	all := newLinks(2, 1, msgRoute)
	l := all[0]
	if err := l.queue(batch(0, 1, backlog)); err != nil {
		t.Fatal(err)
	}
	for i := range 10 * pendingCompactMin {
		if err := l.queue([]msg{{from: 0, to: 1, seq: backlog + i}}); err != nil {
			t.Fatal(err)
		}
		<-l.peers[1] // the peer takes one; the loop sends the next
		l.flush()
		if l.count != backlog-1 {
			t.Fatalf("holds %d hand-offs, want %d", l.count, backlog-1)
		}
	}
	if c := cap(l.pending[1]); c > 4*pendingCompactMin {
		t.Fatalf("a queue holding %d hand-offs has capacity %d", l.count, c)
	}
}

// Past shardPendingMax waiting hand-offs the loop stops with a fatal error.
func TestShardLinksOverflowIsFatal(t *testing.T) {
	all := newLinks(2, 1, msgRoute)
	err := all[0].queue(batch(0, 1, shardPendingMax+2))
	var fatal *FatalError
	if !errors.As(err, &fatal) {
		t.Fatalf("overflow gave %v, want a FatalError", err)
	}
	if !all[0].throttled() {
		t.Fatal("a loop holding that many hand-offs still takes client input")
	}
}
