package assert

import "testing"

// sink keeps the compiler from proving the checked values constant.
var sink = []uint64{1 << 40, 1<<40 + 1}

// thatf is the variadic form asserts had before Failf: its arguments are
// boxed on every call, failing or not.
//
//go:noinline
func thatf(cond bool, format string, args ...any) {
	if !cond {
		Failf(format, args...)
	}
}

// A passing assert allocates nothing when its arguments sit behind the
// condition (Failf) or when its message is constant (That); the variadic
// form boxes its arguments on every call.
func TestPassingAssertAllocatesNothing(t *testing.T) {
	op, head := sink[1], sink[0]
	guarded := testing.AllocsPerRun(1000, func() {
		if op != head+1 {
			Failf("log: op %d after %d", op, head)
		}
	})
	constant := testing.AllocsPerRun(1000, func() { That(op == head+1, "log: op after head") })
	variadic := testing.AllocsPerRun(1000, func() { thatf(op == head+1, "log: op %d after %d", op, head) })
	if guarded != 0 || constant != 0 {
		t.Fatalf("passing asserts allocate: guarded %v, constant %v per call", guarded, constant)
	}
	if variadic == 0 {
		t.Fatalf("the variadic form allocates nothing: the benchmark no longer shows the difference")
	}
}

func BenchmarkPassingAssert(b *testing.B) {
	op, head := sink[1], sink[0]
	b.Run("guarded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if op != head+1 {
				Failf("log: op %d after %d", op, head)
			}
		}
	})
	b.Run("variadic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			thatf(op == head+1, "log: op %d after %d", op, head)
		}
	})
}

func TestFailfPanicsWithTheMessage(t *testing.T) {
	defer func() {
		if r := recover(); r != "assertion failed: op 7" {
			t.Fatalf("recovered %v", r)
		}
	}()
	Failf("op %d", 7)
}
