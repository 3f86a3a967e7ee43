package mark

import (
	"slices"
	"testing"
)

func TestCounts(t *testing.T) {
	c := make(Counts)
	var s Sink = c
	s.Hit("b")
	s.Hit("a")
	s.Hit("b")
	if got := c.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("names %v", got)
	}
	if c["b"] != 2 {
		t.Fatalf("b hit %d times", c["b"])
	}
	if got := c.Missing("a", "c", "d"); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("missing %v", got)
	}
	Discard{}.Hit("x")
}
