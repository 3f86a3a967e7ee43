package node_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// release-callouts [code=N]: the stand-in service answers every held
// callout with code (0 allows the user named after "slow-").
func cmdReleaseCallouts(w *world, a *args) {
	code := a.u32("code", uint32(wire.TransientNotAccepted))
	a.done(0)
	w.requireUp()
	held := w.heldCallouts
	w.heldCallouts = nil
	for _, j := range held {
		res := compute.Result{ID: j.ID, Code: code}
		if code == 0 {
			res.Data = []byte(strings.TrimPrefix(j.Username, "slow-"))
		}
		w.node.Step(node.JobResult(res))
	}
	w.settle()
}

// A callout holds neither a check slot nor another login's turn: while
// both callout slots (callouts=2, as many as the login checks in flight)
// wait on a slow service, root's password login is checked and answered,
// and a third unknown user's login is answered 58 at once (AUTH-27). The
// slow ones' timeouts answer them 58 (AUTH-25); the service's allow then
// signs an unknown login in as the user it names (AUTH-16), and its deny
// or an allow naming root fails it with eviction 9 (AUTH-17, AUTH-23).
// covers AUTH-16, AUTH-17, AUTH-23, AUTH-25, AUTH-27
func TestExternalAuthCalloutsWaitBesideTheQueue(t *testing.T) {
	w := newWorld(t, 1)
	w.run("boot root=iggy/iggy callouts=2")
	w.run("connect admin from=10.9.9.9")
	w.run("login admin iggy iggy")
	carol := strings.Join(w.run("create-user admin carol carol-pass"), "\n")
	for i := range 2 {
		w.run(fmt.Sprintf("connect slow%d from=10.1.1.%d", i, i+1))
		if out := w.run(fmt.Sprintf("login slow%d slow-carol any-pass nowait held", i)); len(out) != 0 {
			t.Fatalf("slow login answered early: %q", out)
		}
	}
	w.run("connect second from=10.2.2.2")
	if out := strings.Join(w.run("login second ext-carol any-pass"), "\n"); out != "result=58 TransientNotAccepted" {
		t.Fatalf("login with the callout slot taken: %q", out)
	}
	w.run("connect root from=10.3.3.3")
	if out := strings.Join(w.run("login root iggy iggy"), "\n"); !strings.Contains(out, "ok user=0") {
		t.Fatalf("root beside a slow callout: %q", out)
	}
	if out := strings.Join(w.run("release-callouts code=58"), "\n"); strings.Count(out, "result=58 TransientNotAccepted") != 2 {
		t.Fatalf("slow callout timed out: %q", out)
	}
	var carolID uint32
	if _, err := fmt.Sscanf(carol, "ok user id=%d name=carol", &carolID); err != nil {
		t.Fatalf("create-user: %q", carol)
	}
	out := strings.Join(w.run("login second ext-carol any-pass"), "\n")
	if want := fmt.Sprintf("ok user=%d ", carolID); !strings.Contains(out, want) {
		t.Fatalf("allowed login: %q, want %q", out, want)
	}
	for _, name := range []string{"denied", "ext-iggy"} {
		w.run(fmt.Sprintf("connect %s", name))
		if out := strings.Join(w.run(fmt.Sprintf("login %s %s any-pass", name, name)), "\n"); !strings.Contains(out, "evicted reason=9") {
			t.Fatalf("login %s: %q", name, out)
		}
	}
}
