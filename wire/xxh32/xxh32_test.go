package xxh32

import "testing"

// covers MSG-16
func TestKnownValues(t *testing.T) {
	cases := []struct {
		in   string
		seed uint32
		want uint32
	}{
		// protocol-data.md §6.
		{"", 0, 0x02CC5D05},
		{"abc", 0, 0x32D153FF},
		{"order-42", 0, 0xBBC33AD1},
		// Published xxHash sanity values (exercise the 16-byte stripe loop).
		{"a", 0, 0x550D7456},
		{"Nobody inspects the spammish repetition", 0, 0xE2293B2F},
	}
	for _, c := range cases {
		if got := Hash([]byte(c.in), c.seed); got != c.want {
			t.Errorf("Hash(%q, %d) = %#08x, want %#08x", c.in, c.seed, got, c.want)
		}
	}
}

func TestSeedChangesHash(t *testing.T) {
	b := []byte("a key long enough to use all four lanes")
	if Hash(b, 0) == Hash(b, 1) {
		t.Fatal("seed has no effect")
	}
}

func FuzzHash(f *testing.F) {
	f.Add([]byte("order-42"), uint32(0))
	f.Add(make([]byte, 33), uint32(7))
	f.Fuzz(func(t *testing.T, b []byte, seed uint32) {
		// Deterministic and never panics.
		if Hash(b, seed) != Hash(append([]byte(nil), b...), seed) {
			t.Fatal("not deterministic")
		}
	})
}
