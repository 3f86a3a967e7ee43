package oracles

import (
	"strings"
	"testing"
)

// Two replicas that applied the same op must have applied the same
// prepare and reached the same state. (checks the oracle, not the server)
func TestConvergenceObserve(t *testing.T) {
	c := NewConvergence()
	ok := []Sample{
		{Replica: 0, Applied: 1, Checksum: 11, Digest: 100, HasDigest: true},
		{Replica: 1, Applied: 1, Checksum: 11, Digest: 100, HasDigest: true},
		{Replica: 2, Applied: 2, Checksum: 22, Digest: 200, HasDigest: true},
		{Replica: 0, Group: GroupKey{Stream: 1}, Applied: 1, Checksum: 5}, // another group, no digest
		{Replica: 1, Group: GroupKey{Stream: 1}, Applied: 1, Checksum: 5},
	}
	for _, s := range ok {
		if err := c.Observe(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Observe(Sample{Replica: 2, Applied: 1, Checksum: 12, Digest: 100, HasDigest: true}); err == nil ||
		!strings.Contains(err.Error(), "applied prepare") {
		t.Fatalf("diverged log: %v", err)
	}
	if err := c.Observe(Sample{Replica: 2, Applied: 2, Checksum: 22, Digest: 201, HasDigest: true}); err == nil ||
		!strings.Contains(err.Error(), "digest") {
		t.Fatalf("diverged state: %v", err)
	}
}

// At the end every live replica is normal, in one view, fully applied and
// equal. (checks the oracle)
func TestCheckConverged(t *testing.T) {
	good := Final{Replica: 0, Normal: true, View: 3, Op: 9, Commit: 9, Applied: 9, Checksum: 1, Digest: 2}
	other := good
	other.Replica = 1
	if err := CheckConverged([]Final{good, other}); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Final){
		"normal status": func(f *Final) { f.Normal = false },
		"committed":     func(f *Final) { f.Commit = 8; f.Applied = 8 },
		"view":          func(f *Final) { f.View = 4 },
		"applied op":    func(f *Final) { f.Checksum = 7 },
		"digests":       func(f *Final) { f.Digest = 3 },
	} {
		bad := other
		mutate(&bad)
		if err := CheckConverged([]Final{good, bad}); err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if CheckConverged(nil) == nil {
		t.Fatal("no replica converged")
	}
}
