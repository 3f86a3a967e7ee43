// Package assert checks invariants. Assertions are always on: a broken
// invariant is a bug, and running on with corrupt state is worse than stopping.
// Never use it for user input; that gets an error code.
package assert

import "fmt"

// That panics with the formatted message when cond is false.
func That(cond bool, format string, args ...any) {
	if !cond {
		panic("assertion failed: " + fmt.Sprintf(format, args...))
	}
}

// Failf panics with the formatted message. Call it behind the condition,
// `if broken { assert.Failf(...) }`, so that the arguments are boxed only
// when an invariant is broken and the passing path costs one comparison.
func Failf(format string, args ...any) {
	panic("assertion failed: " + fmt.Sprintf(format, args...))
}
