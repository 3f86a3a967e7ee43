package oracles

import "testing"

func TestCheckBalanced(t *testing.T) {
	all := []uint8{0, 1, 2}
	even := []PartitionPrimary{{Name: "a", Members: all, Primaries: []uint8{0}}, {Name: "b", Members: all, Primaries: []uint8{1}}}
	if err := CheckBalanced(even, 0b111); err != nil {
		t.Fatal(err)
	}
	for name, parts := range map[string][]PartitionPrimary{
		"two primaries": {{Name: "a", Members: all, Primaries: []uint8{0, 1}}},
		"no primary":    {{Name: "a", Members: all}},
		"a stranger":    {{Name: "a", Members: []uint8{0, 1}, Primaries: []uint8{2}}},
		"a gap of two":  {{Name: "a", Members: all, Primaries: []uint8{0}}, {Name: "b", Members: all, Primaries: []uint8{0}}},
	} {
		if CheckBalanced(parts, 0b111) == nil {
			t.Errorf("%s passed", name)
		}
	}
	// A member that is not live does not count against the spread.
	if err := CheckBalanced([]PartitionPrimary{{Name: "a", Members: []uint8{0, 2}, Primaries: []uint8{0}},
		{Name: "b", Members: []uint8{0, 2}, Primaries: []uint8{0}}}, 0b011); err != nil {
		t.Fatal(err)
	}
}
