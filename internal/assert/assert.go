// Package assert checks invariants. Assertions are always on: a broken
// invariant is a bug, and running on with corrupt state is worse than stopping.
// Never use it for user input; that gets an error code.
package assert

import "fmt"

// That panics with msg when cond is false. msg is a constant: an assert
// whose message needs values is written `if broken { assert.Failf(...) }`,
// so that the passing path builds nothing (TestPassingAssertAllocatesNothing).
func That(cond bool, msg string) {
	if !cond {
		panic("assertion failed: " + msg)
	}
}

// Failf panics with the formatted message. Call it behind the condition,
// `if broken { assert.Failf(...) }`, so that the arguments are boxed only
// when an invariant is broken and the passing path costs one comparison.
func Failf(format string, args ...any) {
	panic("assertion failed: " + fmt.Sprintf(format, args...))
}
