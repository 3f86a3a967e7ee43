// Package mark records coverage marks: named events a state machine reports
// when it takes a rare path (a view change, a repair, a state transfer), so
// a simulator can require that a run exercised them instead of passing
// vacuously. Marks go to a Sink the caller provides; there is no global
// registry, so two replicas in one process never mix their marks.
package mark

import "slices"

// Sink receives marks. Hit must not fail and must not call back into the
// component that reports the mark.
type Sink interface {
	Hit(name string)
}

// Discard is a Sink that drops every mark (production default).
type Discard struct{}

// Hit drops name.
func (Discard) Hit(string) {}

// Counts is a Sink that counts hits per mark; the zero value is not ready,
// use make(mark.Counts).
type Counts map[string]uint64

// Hit counts one hit of name.
func (c Counts) Hit(name string) { c[name]++ }

// Names returns the marks hit at least once, sorted, so reports never
// depend on map order.
func (c Counts) Names() []string {
	out := make([]string, 0, len(c))
	for name := range c {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Missing returns the names of want that were never hit, in the order given.
func (c Counts) Missing(want ...string) []string {
	var out []string
	for _, name := range want {
		if c[name] == 0 {
			out = append(out, name)
		}
	}
	return out
}
