package node_test

import (
	"fmt"
	"strings"
	"testing"
)

// A source may keep 64 logins waiting besides the one being checked; the
// next is answered 58 in its result section (nothing committed, the client
// may retry), and a login from another source is still served (issue 11
// item 4: a full job table used to answer everyone eviction 12).
//
// covers AUTH-11
func TestLoginQueueOfASourceIsBounded(t *testing.T) {
	w := newWorld(t, 1)
	w.run("boot root=iggy/iggy")
	const accepted = 1 + 64
	for i := range accepted + 1 {
		w.run(fmt.Sprintf("connect x%d from=10.1.1.1", i))
	}
	for i := range accepted {
		if out := w.run(fmt.Sprintf("login x%d iggy wrong nowait held", i)); len(out) != 0 {
			t.Fatalf("login %d: %q", i, out)
		}
	}
	if out := strings.Join(w.run(fmt.Sprintf("login x%d iggy wrong nowait", accepted)), "\n"); out != "result=58 TransientNotAccepted" {
		t.Fatalf("login past the source's queue: %q", out)
	}
	w.run("connect g from=10.2.2.2")
	if out := strings.Join(w.run("login g iggy iggy"), "\n"); !strings.Contains(out, "ok user=0") {
		t.Fatalf("login from another source: %q", out)
	}
	if w.marks["node.login.queue_full"] == 0 || w.marks["node.login.backoff_held"] == 0 {
		t.Fatalf("marks %v", w.marks)
	}
}
